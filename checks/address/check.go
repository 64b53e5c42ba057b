// Package address is the address_verification check: it reads a proof of
// address (a utility bill or a bank statement, photographed or as a PDF)
// sent in an extra slot of the request, and decides whether it proves the
// ID holder's address: an accepted kind of document, in the holder's
// name, recent enough, with an address that says where they live.
//
// Import it for its side effect (checks/standard does):
//
//	import _ "github.com/tambua/tambua/checks/address"
package address

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/tambua/tambua/idv"
)

// Reasons.
const (
	ReasonNameMismatch    = "address_name_mismatch"
	ReasonTooOld          = "address_document_too_old"
	ReasonDateInvalid     = "address_document_date_invalid"
	ReasonUnsupported     = "address_document_unsupported"
	ReasonUnreadable      = "address_unreadable"
	ReasonMissing         = "address_document_missing"
	ReasonPOBoxOnly       = "address_po_box_only"
	ReasonDeclaredDiffers = "address_declared_mismatch"
)

// DefaultSlot is the request part the document is expected in (the
// spec's example: a part named proof_of_address).
const DefaultSlot = "proof_of_address"

func init() {
	idv.Register(idv.CheckAddress, func(idv.Settings) (idv.Check, error) { return New(DefaultLimits), nil })
}

// Check is the address_verification check.
type Check struct {
	limits Limits
}

var (
	_ idv.Check         = (*Check)(nil)
	_ idv.StepValidator = (*Check)(nil)
)

// New returns the check reading documents under lim.
func New(lim Limits) *Check { return &Check{limits: lim} }

// Name implements idv.Check.
func (*Check) Name() string { return idv.CheckAddress }

// Cost implements idv.Check.
func (*Check) Cost() int { return idv.CostOf(idv.CheckAddress) }

// Params are the step's parameters.
type Params struct {
	// MaxAgeDays is how old the document may be, 1 to 365 (default 90,
	// the common rule of banks and of the commercial services).
	MaxAgeDays int
	// AllowPOBox accepts an address that is only a post office box. Off by
	// default: a box says where mail is collected, not where the holder
	// lives. Many East African customers have only a box; a workflow that
	// serves them turns it on.
	AllowPOBox bool
	// Slot is the request part holding the document; empty means any part
	// other than front, back and selfie.
	Slot string
}

// ParamsOf reads and validates a step's parameters.
func ParamsOf(st idv.Step) (Params, error) {
	p := Params{MaxAgeDays: 90}
	for k, v := range st.Params {
		switch k {
		case "max_age_days":
			f, ok := v.(float64)
			if i, isInt := v.(int); isInt {
				f, ok = float64(i), true
			}
			if !ok || f != math.Trunc(f) || f < 1 || f > 365 {
				return p, fmt.Errorf("max_age_days %v must be a whole number from 1 to 365", v)
			}
			p.MaxAgeDays = int(f)
		case "allow_po_box":
			b, ok := v.(bool)
			if !ok {
				return p, fmt.Errorf("allow_po_box %v must be true or false", v)
			}
			p.AllowPOBox = b
		case "slot":
			s, ok := v.(string)
			if !ok || s == "" {
				return p, fmt.Errorf("slot %v must be a part name", v)
			}
			p.Slot = s
		default:
			return p, fmt.Errorf("unknown parameter %q (max_age_days, allow_po_box, slot)", k)
		}
	}
	return p, nil
}

// ValidateStep implements idv.StepValidator.
func (*Check) ValidateStep(st idv.Step) error {
	_, err := ParamsOf(st)
	return err
}

// Section is the result section address_verification.
type Section struct {
	Status       idv.Status `json:"status"`
	Decision     string     `json:"decision"` // match, review, no_match
	DocumentKind string     `json:"document_kind"`
	KindEvidence []string   `json:"kind_evidence"`
	Issuer       string     `json:"issuer"`
	HolderName   string     `json:"holder_name"`
	NameMatch    NameMatch  `json:"name_match"`
	Address      Address    `json:"address"`
	IssueDate    string     `json:"issue_date"`
	DateSource   string     `json:"date_source"`
	AgeDays      *int       `json:"age_days"`
	MaxAgeDays   int        `json:"max_age_days"`
	Source       string     `json:"source"`
	Slot         string     `json:"slot"`
	Reasons      []string   `json:"reasons"`
	Error        string     `json:"error,omitempty"`
	// extra are score pieces of the outcome beyond the name match.
	extra []idv.ScorePiece
}

// Run implements idv.Check.
func (k *Check) Run(ctx context.Context, c *idv.Case) (idv.Outcome, error) {
	p, err := ParamsOf(c.Step)
	if err != nil {
		return idv.Outcome{}, err
	}
	now := c.Now
	sec := &Section{MaxAgeDays: p.MaxAgeDays, NameMatch: NameMatch{Unmatched: []string{}}, Address: Address{Lines: []string{}},
		KindEvidence: []string{}, Reasons: []string{}}
	finish := func(status idv.Status, decision string, reasons ...string) (idv.Outcome, error) {
		sec.Status, sec.Decision = status, decision
		sec.Reasons = append(sec.Reasons, reasons...)
		c.SetSection("address_verification", sec)
		pieces := append(append([]idv.ScorePiece{}, sec.NameMatch.Pieces...), sec.extra...)
		out := idv.Outcome{Status: status, Reasons: sec.Reasons, Pieces: pieces}
		if status == idv.StatusPassed {
			out.Confidence, out.HasConfidence = sec.NameMatch.Score, true
		}
		return out, nil
	}
	slot, img, ok := document(c, p.Slot)
	if !ok {
		sec.Error = "no proof-of-address part in the request"
		if p.Slot != "" {
			sec.Error = fmt.Sprintf("no part named %s in the request", p.Slot)
		}
		return finish(idv.StatusReview, "review", ReasonMissing)
	}
	sec.Slot = slot
	page, err := ReadUntil(ctx, img.Data, k.limits, enoughToJudge(holderNames(c)))
	if err != nil {
		if ctx.Err() != nil {
			return idv.Outcome{}, err
		}
		sec.Error = strings.TrimPrefix(err.Error(), "address: ")
		return finish(idv.StatusReview, "review", ReasonUnreadable)
	}
	return k.judge(c, page, p, now, sec, finish)
}

// judge decides on a read document.
func (k *Check) judge(c *idv.Case, page *Page, p Params, now time.Time, sec *Section,
	finish func(idv.Status, string, ...string) (idv.Outcome, error)) (idv.Outcome, error) {
	sec.Source = page.Source
	texts := page.Texts()
	sec.DocumentKind, sec.KindEvidence = classify(strings.Join(texts, "\n"))
	if len(page.Screen) > 0 {
		sec.DocumentKind, sec.KindEvidence = KindScreenshot, page.Screen
	}
	if sec.KindEvidence == nil {
		sec.KindEvidence = []string{}
	}
	sec.Issuer = issuer(page.Lines)
	names := holderNames(c)
	name, addr := holder(page.Lines, names)
	sec.HolderName = name
	if addr != nil {
		sec.Address = Address{Lines: addr, Parts: parseParts(addr)}
	}
	if d, src, ok := issueDate(page.Lines); ok {
		sec.IssueDate, sec.DateSource = d.Format(time.DateOnly), src
		age := int(now.Sub(d).Hours() / 24)
		sec.AgeDays = &age
	}
	if !Accepted(sec.DocumentKind) {
		if sec.DocumentKind == KindUnknown && name == "" {
			return finish(idv.StatusReview, "review", ReasonUnreadable)
		}
		return finish(idv.StatusFailed, "no_match", ReasonUnsupported)
	}
	if name == "" || sec.IssueDate == "" || len(sec.Address.Lines) == 0 {
		var missing []string
		for what, gone := range map[string]bool{"holder name": name == "", "issue date": sec.IssueDate == "", "address": len(sec.Address.Lines) == 0} {
			if gone {
				missing = append(missing, what)
			}
		}
		sec.Error = "not found on the document: " + strings.Join(missing, ", ")
		return finish(idv.StatusReview, "review", ReasonUnreadable)
	}
	if len(names) == 0 {
		sec.Error = "the ID's name is unknown (run ocr_extraction or mrz_parsing first)"
		return finish(idv.StatusReview, "review", ReasonNameMismatch)
	}
	sec.NameMatch = MatchName(name, names)
	var failed, review []string
	switch {
	case *sec.AgeDays < -1: // a day's grace for time zones
		failed = append(failed, ReasonDateInvalid)
	case *sec.AgeDays > p.MaxAgeDays:
		failed = append(failed, ReasonTooOld)
	}
	switch {
	case sec.NameMatch.Match:
	case len(sec.NameMatch.Unmatched) > 0 || sec.NameMatch.Score < 0.5:
		failed = append(failed, ReasonNameMismatch)
	default:
		review = append(review, ReasonNameMismatch) // initials only: a person decides
	}
	if sec.Address.Parts.POBoxOnly() && !p.AllowPOBox {
		failed = append(failed, ReasonPOBoxOnly)
	}
	if declared, ok := declaredAddress(c); ok {
		agree := addressAgreement(declared, sec.Address.Lines)
		sec.extra = append(sec.extra, idv.ScorePiece{Name: "declared_address_agreement",
			Value: agree, Weight: 0, Note: "words of the declared address found in the document's address"})
		// Half the declared words: a declared address and a bill's print of
		// it differ in abbreviations and order, rarely in most words.
		if agree < 0.5 {
			review = append(review, ReasonDeclaredDiffers)
		}
	}
	switch {
	case len(failed) > 0:
		return finish(idv.StatusFailed, "no_match", append(failed, review...)...)
	case len(review) > 0:
		return finish(idv.StatusReview, "review", review...)
	}
	return finish(idv.StatusPassed, "match")
}

// enoughToJudge says whether the lines read from the top of a page settle
// what the rest of it could change: an accepted kind with no word of a
// refused one, a labelled holder's name (the first label counts, whatever
// follows) or else an addressee block in the ID holder's own name, with
// an address under it, and a date labelled as the document's. Anything
// less (a refused or unknown kind, an unlabelled name that is not the
// holder's, an unlabelled date) has the whole page read, so that evidence
// further down counts as before.
func enoughToJudge(names []string) func([]Line) bool {
	return func(lines []Line) bool {
		texts := make([]string, len(lines))
		for i, l := range lines {
			texts[i] = l.Text
		}
		text := strings.Join(texts, "\n")
		if kind, _ := classify(text); !Accepted(kind) || refusedEvidence(text) {
			return false
		}
		name, addr, labelled := holderOf(lines, names)
		if name == "" || len(addr) == 0 || len(names) == 0 || !labelled && !MatchName(name, names).Match {
			return false
		}
		_, src, ok := issueDate(lines)
		return ok && strings.HasPrefix(src, "labelled")
	}
}

// document finds the proof-of-address image: the named slot, or the one
// part that is not front, back or selfie.
func document(c *idv.Case, slot string) (string, idv.Image, bool) {
	if slot != "" {
		img, ok := c.Images[slot]
		return slot, img, ok && len(img.Data) > 0
	}
	if img, ok := c.Images[DefaultSlot]; ok && len(img.Data) > 0 {
		return DefaultSlot, img, true
	}
	for name, img := range c.Images {
		switch name {
		case idv.SlotFront, idv.SlotBack, idv.SlotSelfie:
		default:
			if len(img.Data) > 0 {
				return name, img, true
			}
		}
	}
	return "", idv.Image{}, false
}

// holderNames are the ID holder's names: the MRZ's when its check digits
// pass, else the printed fields.
func holderNames(c *idv.Case) []string {
	if m := c.MRZ(); m != nil && m.AllChecksPass && m.Surname != "" {
		return []string{m.GivenNames, m.Surname}
	}
	var out []string
	for _, f := range []string{"full_name", "surname", "given_names", "first_name", "last_name", "other_names"} {
		if v := strings.TrimSpace(c.Field(f)); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// declaredAddress is the "address" the caller put in the request message.
func declaredAddress(c *idv.Case) (string, bool) {
	raw, ok := c.Message["address"]
	if !ok {
		return "", false
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil || strings.TrimSpace(s) == "" {
		return "", false
	}
	return s, true
}

// addressAgreement is the share of the declared address's words (three
// letters or more, or numbers) found in the document's address lines.
func addressAgreement(declared string, lines []string) float64 {
	have := map[string]bool{}
	for _, t := range addressTokens(strings.Join(lines, " ")) {
		have[t] = true
	}
	want := addressTokens(declared)
	if len(want) == 0 {
		return 0
	}
	n := 0
	for _, t := range want {
		if have[t] {
			n++
		}
	}
	return float64(n) / float64(len(want))
}

func addressTokens(s string) []string {
	var out []string
	for _, t := range strings.FieldsFunc(strings.ToUpper(s), func(r rune) bool {
		return !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		if len(t) >= 3 || t[0] >= '0' && t[0] <= '9' {
			out = append(out, t)
		}
	}
	return out
}

// issuer is the company the document comes from: the first line at the
// top of the page that names an organisation, else the first line.
func issuer(lines []Line) string {
	for i, l := range lines {
		if i > 8 {
			break
		}
		up := " " + strings.ToUpper(l.Text) + " "
		for _, w := range []string{"LTD", "LIMITED", "PLC", "BANK", "COMPANY", "AUTHORITY", "CORPORATION", "POWER",
			"WATER", "TELKOM", "UTILITIES", "ENERGY", "SACCO"} {
			if containsWord(up, w) {
				return strings.TrimSpace(l.Text)
			}
		}
	}
	if len(lines) > 0 {
		return strings.TrimSpace(lines[0].Text)
	}
	return ""
}
