package address

import (
	"strings"
	"unicode"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/textdist"
	"golang.org/x/text/unicode/norm"
)

// titles are honorifics dropped before names are compared.
var titles = map[string]bool{
	"MR": true, "MRS": true, "MS": true, "MISS": true, "MX": true, "DR": true, "PROF": true,
	"ENG": true, "REV": true, "HON": true, "SIR": true, "MADAM": true, "MME": true, "M": false,
}

// nameTokens upper-cases, strips accents and punctuation, and drops titles.
func nameTokens(s string) []string {
	s = norm.NFD.String(s)
	var b strings.Builder
	for _, r := range s {
		switch {
		case unicode.Is(unicode.Mn, r):
		case unicode.IsLetter(r):
			b.WriteRune(unicode.ToUpper(r))
		case r == '\'':
		default:
			b.WriteByte(' ')
		}
	}
	var out []string
	for _, t := range strings.Fields(b.String()) {
		if !titles[t] {
			out = append(out, t)
		}
	}
	return out
}

// NameMatch is how a name on the document compares with the ID's.
type NameMatch struct {
	Score  float64          `json:"score"`
	Match  bool             `json:"match"`
	Pieces []idv.ScorePiece `json:"pieces"`
	// Unmatched are document tokens that fit no name of the holder.
	Unmatched []string `json:"unmatched"`
}

// MatchName compares the name printed on the document (doc) with the ID
// holder's names. A bill prints names in any order, reduces middle names
// to initials and adds titles, so: every token of doc must be one of the
// holder's names (or an initial of one), and at least two full names must
// be there, or one when the holder has only one. A full token that is no
// name of the holder (another surname, another first name) is a mismatch.
// One OCR slip is forgiven in names of five letters or more.
func MatchName(doc string, holder []string) NameMatch {
	d := nameTokens(doc)
	var h []string
	for _, s := range holder {
		h = append(h, nameTokens(s)...)
	}
	m := NameMatch{Unmatched: []string{}}
	if len(d) == 0 || len(h) == 0 {
		return m
	}
	used := make([]bool, len(h))
	full, explained := 0, 0
	// Full names first, so an initial never takes a name printed in full.
	var rest []string
	for _, t := range d {
		if j := bestToken(t, h, used); j >= 0 && len(t) > 1 {
			used[j] = true
			full++
			explained++
		} else if j, k := joined(t, h, used); j >= 0 {
			// Two names read as one word ("NYAMBURAACHIENG"): OCR loses
			// the space between letters whose strokes lean together.
			used[j], used[k] = true, true
			full += 2
			explained++
		} else {
			rest = append(rest, t)
		}
	}
	for _, t := range rest {
		if j := initialOf(t, h, used); len(t) == 1 && j >= 0 {
			used[j] = true
			explained++
		} else {
			m.Unmatched = append(m.Unmatched, t)
		}
	}
	need := min(2, len(h))
	fullScore := min(1, float64(full)/float64(need))
	covered := float64(explained) / float64(len(d))
	m.Score = fullScore * covered
	m.Pieces = []idv.ScorePiece{
		{Name: "holder_names_found", Value: fullScore, Weight: 1, Note: "full names of the holder on the document, of the two needed"},
		{Name: "document_tokens_explained", Value: covered, Weight: 1, Note: "document name tokens that are a holder name or its initial"},
	}
	m.Match = len(m.Unmatched) == 0 && full >= need
	return m
}

func bestToken(t string, h []string, used []bool) int {
	for j, s := range h {
		if !used[j] && s == t {
			return j
		}
	}
	if len(t) < 5 {
		return -1
	}
	for j, s := range h {
		if !used[j] && len(s) >= 5 && textdist.Levenshtein(s, t) <= 1 {
			return j
		}
	}
	return -1
}

// joined finds two unused holder names that t is written as, run together.
func joined(t string, h []string, used []bool) (int, int) {
	for j, a := range h {
		if used[j] || !strings.HasPrefix(t, a) {
			continue
		}
		for k, b := range h {
			if k != j && !used[k] && t == a+b {
				return j, k
			}
		}
	}
	return -1, -1
}

func initialOf(t string, h []string, used []bool) int {
	for j, s := range h {
		if !used[j] && s[0] == t[0] {
			return j
		}
	}
	return -1
}
