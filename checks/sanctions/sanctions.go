// Package sanctions is the sanctions_screening check: it screens the
// document holder's name, with date of birth and nationality when known,
// against the sanctions lists (OFAC, UN, EU, US CSL, BIS DPL) and the PEP
// list of a snapshot folder, and sends a verification with a hit above
// the alert threshold to review: a possible match needs a person.
//
// Import it for its side effect (checks/standard does):
//
//	import _ "github.com/tambua/tambua/checks/sanctions"
package sanctions

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/tambua/tambua/checks/sanctions/lists"
	"github.com/tambua/tambua/checks/sanctions/match"
	"github.com/tambua/tambua/idv"
)

// SettingListsDir is the idv.Settings key of the lists folder (comma
// separated for several).
const SettingListsDir = "lists_dir"

// Reasons.
const (
	ReasonSanctionsHit = "sanctions_hit"
	ReasonPEPHit       = "pep_hit"
)

// Section statuses.
const (
	StatusClear         = "clear"
	StatusPossibleMatch = "possible_match"
)

func init() {
	idv.Register(idv.CheckSanctions, func(s idv.Settings) (idv.Check, error) {
		return New(s.Get(SettingListsDir, lists.DefaultDir())), nil
	})
}

// Check is the sanctions_screening check. Lists load on first use and
// stay loaded; when `tambua lists update` swaps in a new snapshot the
// next run loads it, so a long-running server follows updates without a
// restart. A workflow may name another folder in its params.
type Check struct {
	dir string

	mu      sync.Mutex
	indexes map[string]loaded
}

type loaded struct {
	idx *match.Index
	// version is the targets of the folders' current links when loaded.
	version string
}

var (
	_ idv.Check         = (*Check)(nil)
	_ idv.StepValidator = (*Check)(nil)
)

// New returns the check reading lists from dir (comma separated for
// several folders).
func New(dir string) *Check {
	return &Check{dir: dir, indexes: map[string]loaded{}}
}

// NewWithIndex returns a check over an index already built (tests,
// embedders holding lists in memory).
func NewWithIndex(idx *match.Index) *Check {
	return &Check{dir: "memory", indexes: map[string]loaded{"memory": {idx: idx, version: "memory"}}}
}

// Name implements idv.Check.
func (*Check) Name() string { return idv.CheckSanctions }

// Cost implements idv.Check.
func (*Check) Cost() int { return idv.CostOf(idv.CheckSanctions) }

// version names the snapshots dir reads now: where each folder's current
// link points ("" for plain folders, which never change under us).
func version(dir string) string {
	var b strings.Builder
	for _, d := range lists.SplitDirs(dir) {
		t, _ := os.Readlink(filepath.Join(d, lists.CurrentLink))
		b.WriteString(t)
		b.WriteByte(0)
	}
	return b.String()
}

// Index returns the index of dir, loading it the first time and again
// after a snapshot swap. A failed load is not remembered, so fixing the
// folder fixes the next run; a failed reload keeps the loaded lists.
func (ch *Check) Index(dir string) (*match.Index, error) {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	l, ok := ch.indexes[dir]
	if ok && (l.version == "memory" || l.version == version(dir)) {
		return l.idx, nil
	}
	v := version(dir)
	snap, err := lists.LoadAll(lists.SplitDirs(dir)...)
	if err != nil {
		if ok {
			// Keep screening with the lists already loaded, and do not
			// retry this broken version on every run.
			ch.indexes[dir] = loaded{idx: l.idx, version: v}
			return l.idx, nil
		}
		return nil, err
	}
	idx := match.New(snap.Entities)
	ch.indexes[dir] = loaded{idx: idx, version: v}
	return idx, nil
}

// Params are the per-workflow settings of the check.
type Params struct {
	// Threshold is the score from which a hit is an alert.
	Threshold float64
	// ListsDir overrides the process-wide lists folder.
	ListsDir string
	// Lists restricts screening to these lists (ofac_sdn, un_sc, pep...).
	Lists []string
}

// ValidateStep refuses a bad or unknown param when the workflow is
// prepared (idv.StepValidator), so a typo fails the workflow once instead
// of making the check unavailable at every verification. Run still reads
// the params for a Case built by hand. Whether the lists load is a run-time
// matter: a folder filled later, or swapped, is read then.
func (*Check) ValidateStep(st idv.Step) error {
	_, err := ParseParams(st.Params)
	return err
}

// ParseParams reads the check's params: threshold (number in (0, 1]),
// lists_dir (string), lists (a non-empty list of known list names).
func ParseParams(p map[string]any) (Params, error) {
	out := Params{Threshold: match.DefaultThreshold}
	for k, v := range p {
		switch k {
		case "threshold":
			f, ok := v.(float64)
			if !ok {
				if i, isInt := v.(int); isInt {
					f, ok = float64(i), true
				}
			}
			// !(f > 0) also refuses NaN.
			if !ok || !(f > 0) || f > 1 {
				return out, fmt.Errorf("sanctions_screening: params.threshold must be a number in (0, 1], got %v", v)
			}
			out.Threshold = f
		case "lists_dir":
			s, ok := v.(string)
			if !ok || s == "" {
				return out, fmt.Errorf("sanctions_screening: params.lists_dir must be a folder name")
			}
			out.ListsDir = s
		case "lists":
			arr, ok := v.([]any)
			if names, isStrings := v.([]string); isStrings { // a workflow built in Go
				arr, ok = make([]any, len(names)), true
				for i, n := range names {
					arr[i] = n
				}
			}
			if !ok || len(arr) == 0 {
				return out, fmt.Errorf("sanctions_screening: params.lists must be a non-empty list of list names (%s)", strings.Join(lists.Names, ", "))
			}
			for _, it := range arr {
				s, ok := it.(string)
				if !ok {
					return out, fmt.Errorf("sanctions_screening: params.lists must be a list of list names (%s)", strings.Join(lists.Names, ", "))
				}
				// A misspelt name would match no entity and screen
				// against nothing: the holder would always be clear.
				if !lists.Known(s) {
					return out, fmt.Errorf("sanctions_screening: params.lists: unknown list %q (%s)", s, strings.Join(lists.Names, ", "))
				}
				out.Lists = append(out.Lists, s)
			}
		default:
			return out, fmt.Errorf("sanctions_screening: unknown param %q (threshold, lists_dir, lists)", k)
		}
	}
	return out, nil
}

// HitJSON is one hit as the result section shows it.
type HitJSON struct {
	List        string           `json:"list"`
	EntityID    string           `json:"entity_id"`
	Name        string           `json:"name"`
	MatchedName string           `json:"matched_name"`
	Score       float64          `json:"score"`
	Alert       bool             `json:"alert"`
	Programs    []string         `json:"programs"`
	Pieces      []idv.ScorePiece `json:"pieces"`
}

// ListHits is the ofac or pep object of the section.
type ListHits struct {
	TotalHits int       `json:"total_hits"`
	Hits      []HitJSON `json:"hits"`
}

// Section is the sanctions_screening result object: status, total_hits,
// ofac (every sanctions list: OFAC, UN, EU, CSL, DPL) and pep.
type Section struct {
	Status    string   `json:"status"`
	TotalHits int      `json:"total_hits"`
	OFAC      ListHits `json:"ofac"`
	PEP       ListHits `json:"pep"`
}

// Subject is who is screened.
type Subject struct {
	Name string
	DOB  *lists.Date
	// Country is ISO 3166-1 alpha-2.
	Country string
	// Source says where the name came from: mrz or ocr.
	Source string
}

// SubjectOf reads the holder's name, date of birth and nationality from
// the case: from the MRZ when its check digits pass, else from the
// printed fields (full_name, date_of_birth as DD.MM.YYYY).
func SubjectOf(c *idv.Case) (Subject, error) {
	if m := c.MRZ(); m != nil && m.AllChecksPass && strings.TrimSpace(m.Surname) != "" {
		// MRZ fillers may survive in the parsed names (JOHN<PAUL).
		name := strings.Join(strings.Fields(strings.ReplaceAll(m.GivenNames+" "+m.Surname, "<", " ")), " ")
		s := Subject{Name: name, Source: "mrz"}
		if d, ok := lists.ParseDate(m.DateOfBirth); ok && d.Day != 0 {
			s.DOB = &d
		}
		s.Country = lists.CountryCode(strings.Trim(m.Nationality, "<"))
		return s, nil
	}
	name := strings.TrimSpace(c.Field("full_name"))
	if name == "" {
		return Subject{}, errors.New("sanctions_screening: no name to screen (no MRZ with passing check digits and no full_name read)")
	}
	s := Subject{Name: name, Source: "ocr"}
	if d, ok := lists.ParseDate(c.Field("date_of_birth")); ok && d.Day != 0 {
		s.DOB = &d
	}
	return s, nil
}

// Run implements idv.Check.
func (ch *Check) Run(ctx context.Context, c *idv.Case) (idv.Outcome, error) {
	p, err := ParseParams(c.Step.Params)
	if err != nil {
		return idv.Outcome{}, err
	}
	dir := ch.dir
	if p.ListsDir != "" {
		dir = p.ListsDir
	}
	idx, err := ch.Index(dir)
	if err != nil {
		return idv.Outcome{}, err
	}
	if err := ctx.Err(); err != nil {
		return idv.Outcome{}, err
	}
	subj, err := SubjectOf(c)
	if err != nil {
		return idv.Outcome{}, err
	}
	hits := idx.Screen(subj.Name, match.Options{
		DOB:     subj.DOB,
		Country: subj.Country,
		Lists:   p.Lists,
		// The holder of an identity document is a person; lists that do
		// not say what an entry is (BIS DPL) are kept.
		Kinds: []lists.Kind{lists.Person, lists.Unknown},
	})
	sec, out := Evaluate(hits, p.Threshold)
	c.SetSection("sanctions_screening", sec)
	out.Pieces = append(out.Pieces, idv.ScorePiece{Name: "screened_name", Value: 1, Weight: 0, Note: subj.Source + ": " + subj.Name})
	return out, nil
}

// Evaluate turns hits into the section and the outcome: review with
// sanctions_hit and/or pep_hit when a hit reaches the threshold.
func Evaluate(hits []match.Hit, threshold float64) (Section, idv.Outcome) {
	sec := Section{Status: StatusClear, OFAC: ListHits{Hits: []HitJSON{}}, PEP: ListHits{Hits: []HitJSON{}}}
	out := idv.Outcome{Status: idv.StatusPassed}
	top := 0.0
	if len(hits) > 0 {
		top = hits[0].Score
	}
	out.Pieces = append(out.Pieces, idv.ScorePiece{Name: "top_score", Value: top, Weight: 0,
		Note: fmt.Sprintf("best hit score; alert threshold %.2f", threshold)})
	for _, h := range hits {
		hj := HitJSON{
			List: h.Entity.List, EntityID: h.Entity.ID, Name: h.Entity.Name, MatchedName: h.MatchedName,
			Score: h.Score, Alert: h.Score >= threshold, Programs: nonNil(h.Entity.Programs), Pieces: h.Pieces,
		}
		reason := ReasonSanctionsHit
		target := &sec.OFAC
		if lists.Category(h.Entity.List) == "pep" {
			reason, target = ReasonPEPHit, &sec.PEP
		}
		target.Hits = append(target.Hits, hj)
		target.TotalHits++
		sec.TotalHits++
		if hj.Alert {
			sec.Status = StatusPossibleMatch
			out.Status = idv.StatusReview
			if !contains(out.Reasons, reason) {
				out.Reasons = append(out.Reasons, reason)
			}
			out.Pieces = append(out.Pieces, idv.ScorePiece{Name: reason, Value: h.Score, Weight: 1,
				Note: fmt.Sprintf("%s %s %q matched as %q", h.Entity.List, h.Entity.ID, h.Entity.Name, h.MatchedName)})
		}
	}
	return sec, out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
