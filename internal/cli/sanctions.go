package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/tambua/tambua/checks/sanctions/lists"
	"github.com/tambua/tambua/checks/sanctions/match"
	"github.com/tambua/tambua/idv"
)

func init() {
	Register(&Command{
		Path:    "sanctions screen",
		Summary: "screen names from stdin (one per line) against the sanctions and PEP lists",
		Run:     runSanctionsScreen,
	})
}

type screenHit struct {
	EntityID    string           `json:"entity_id"`
	List        string           `json:"list"`
	Name        string           `json:"name"`
	MatchedName string           `json:"matched_name"`
	Score       float64          `json:"score"`
	Programs    []string         `json:"programs"`
	Pieces      []idv.ScorePiece `json:"pieces"`
}

type screenLine struct {
	Query  string      `json:"query"`
	Alert  bool        `json:"alert"`
	Hits   []screenHit `json:"hits"`
	TookUS int64       `json:"took_us"`
}

func runSanctionsScreen(ctx context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "sanctions screen")
	dirs := fs.String("lists", lists.DefaultDir(), "list folders, comma separated")
	threshold := fs.Float64("threshold", match.DefaultThreshold, "score from which a hit is an alert")
	floor := fs.Float64("floor", match.DefaultFloor, "lowest score reported")
	limit := fs.Int("limit", match.DefaultLimit, "most hits per name")
	dob := fs.String("dob", "", "date of birth of every name, YYYY-MM-DD (or YYYY)")
	nat := fs.String("nationality", "", "nationality of every name: ISO 3166 alpha-3 or alpha-2 code, or country name")
	if err := Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return Usagef("names are read from stdin, one per line; unexpected argument %q", fs.Arg(0))
	}
	if *threshold <= 0 || *threshold > 1 || *floor <= 0 || *floor > 1 || *limit < 1 {
		return Usagef("--threshold and --floor must be in (0, 1], --limit positive")
	}
	opt := match.Options{Floor: *floor, Limit: *limit}
	if *dob != "" {
		d, ok := lists.ParseDate(*dob)
		if !ok {
			return Usagef("--dob %q is not a date (YYYY-MM-DD)", *dob)
		}
		opt.DOB = &d
	}
	if *nat != "" {
		opt.Country = lists.CountryCode(*nat)
		if opt.Country == "" {
			return Usagef("--nationality %q is not a country code", *nat)
		}
	}
	snap, err := lists.LoadAll(lists.SplitDirs(*dirs)...)
	if err != nil {
		return err
	}
	idx := match.New(snap.Entities)
	in := bufio.NewScanner(env.Stdin)
	in.Buffer(make([]byte, 64*1024), 1<<20)
	w := bufio.NewWriter(env.Stdout)
	defer w.Flush()
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for in.Scan() {
		if err := ctx.Err(); err != nil {
			return err
		}
		q := strings.TrimSpace(in.Text())
		if q == "" {
			continue
		}
		t0 := time.Now()
		hits := idx.Screen(q, opt)
		took := time.Since(t0)
		line := screenLine{Query: q, Hits: make([]screenHit, len(hits)), TookUS: took.Microseconds()}
		for i, h := range hits {
			progs := h.Entity.Programs
			if progs == nil {
				progs = []string{}
			}
			line.Hits[i] = screenHit{EntityID: h.Entity.ID, List: h.Entity.List, Name: h.Entity.Name,
				MatchedName: h.MatchedName, Score: h.Score, Programs: progs, Pieces: h.Pieces}
			if h.Score >= *threshold {
				line.Alert = true
			}
		}
		if err := enc.Encode(line); err != nil {
			return err
		}
	}
	if err := in.Err(); err != nil {
		return Usagef("reading names: %v", err)
	}
	return nil
}
