// Package regexgen draws random strings that match a regular expression:
// the identifiers a document definition describes by pattern, for the
// synthetic corpus and the test cards.
package regexgen

import (
	"fmt"
	"math/rand/v2"
	"regexp/syntax"
	"strings"
	"unicode"
)

// Draw returns a random string that matches the regular expression
// pattern, drawing from r. It covers the constructs definitions use for identifiers
// (literals, classes, repeats, alternations, groups, anchors); unbounded
// repeats draw up to a few extra characters. Letters come out upper case
// unless the class demands otherwise.
func Draw(r *rand.Rand, pattern string) (string, error) {
	g := gen{r}
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", fmt.Errorf("regexgen: pattern %q: %w", pattern, err)
	}
	re = re.Simplify()
	var b strings.Builder
	if err := genRe(g, re, &b, 0); err != nil {
		return "", fmt.Errorf("regexgen: pattern %q: %w", pattern, err)
	}
	return b.String(), nil
}

func genRe(g gen, re *syntax.Regexp, b *strings.Builder, depth int) error {
	if depth > 100 {
		return fmt.Errorf("too deep")
	}
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return nil
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 {
				r = unicode.ToUpper(r)
			}
			b.WriteRune(r)
		}
		return nil
	case syntax.OpCharClass:
		b.WriteRune(pickFromClass(g, re.Rune))
		return nil
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteRune(rune('A' + g.intn(26)))
		return nil
	case syntax.OpCapture:
		return genRe(g, re.Sub[0], b, depth+1)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if err := genRe(g, s, b, depth+1); err != nil {
				return err
			}
		}
		return nil
	case syntax.OpAlternate:
		return genRe(g, re.Sub[g.intn(len(re.Sub))], b, depth+1)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := 0, 0
		switch re.Op {
		case syntax.OpStar:
			lo, hi = 0, 3
		case syntax.OpPlus:
			lo, hi = 1, 4
		case syntax.OpQuest:
			lo, hi = 0, 1
		default:
			lo, hi = re.Min, re.Max
			if hi < 0 {
				hi = lo + 3
			}
		}
		n := g.between(lo, hi)
		for i := 0; i < n; i++ {
			if err := genRe(g, re.Sub[0], b, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("unsupported construct %v", re.Op)
}

// pickFromClass draws a rune from a class given as [lo, hi] pairs,
// preferring upper case letters and digits, which is what cards print.
func pickFromClass(g gen, ranges []rune) rune {
	var pref []rune
	total := 0
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		for _, want := range [][2]rune{{'A', 'Z'}, {'0', '9'}, {' ', ' '}, {'-', '-'}, {'/', '/'}, {'.', '.'}} {
			a, z := max(lo, want[0]), min(hi, want[1])
			if a <= z {
				pref = append(pref, a, z)
				total += int(z-a) + 1
			}
		}
	}
	if total == 0 {
		// only lower case or exotic runes: take from the class as given
		for i := 0; i+1 < len(ranges); i += 2 {
			total += int(min(ranges[i+1], ranges[i]+1000)-ranges[i]) + 1
		}
		k := g.intn(total)
		for i := 0; i+1 < len(ranges); i += 2 {
			n := int(min(ranges[i+1], ranges[i]+1000)-ranges[i]) + 1
			if k < n {
				return ranges[i] + rune(k)
			}
			k -= n
		}
		return ranges[0]
	}
	// spaces and punctuation only rarely
	k := g.intn(total)
	for i := 0; i+1 < len(pref); i += 2 {
		n := int(pref[i+1]-pref[i]) + 1
		if k < n {
			r := pref[i] + rune(k)
			if (r == ' ' || r == '-' || r == '/' || r == '.') && total > 4 {
				return pickFromClass(g, ranges)
			}
			return r
		}
		k -= n
	}
	return pref[0]
}

// gen draws as the synthetic corpus's generator does, so that moving the
// generator here kept every seed's corpus byte for byte.
type gen struct{ r *rand.Rand }

func (g gen) intn(n int) int {
	if n <= 0 {
		return 0
	}
	return g.r.IntN(n)
}

// between returns an int in [lo, hi].
func (g gen) between(lo, hi int) int {
	if hi <= lo {
		return lo
	}
	return lo + g.r.IntN(hi-lo+1)
}
