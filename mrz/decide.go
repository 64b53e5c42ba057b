package mrz

import (
	"math"
	"strings"
)

// Deciding the characters: field-type constraints, priors, and check
// digits arbitrating between look-alike readings.

// decode chooses each character under the constraints of the format's
// field types.
func (rd *Reading) decode(ks [][]kind, names [][]string) {
	n := len(rd.cells)
	rd.Lines = make([]string, n)
	var conf float64
	cells := 0
	for li := range rd.cells {
		buf := make([]byte, len(rd.cells[li]))
		for i, sc := range rd.cells[li] {
			if names[li][i] == "name" {
				buf[i] = bestName(sc)
			} else {
				buf[i] = best(sc, allowedFor(ks[li][i]))
			}
			if ks[li][i] == kAlnum {
				buf[i] = preferDigit(sc, buf[i])
			}
			conf += float64(sc[classIndex(buf[i])])
			cells++
		}
		rd.Lines[li] = string(buf)
	}
	rd.Confidence = conf / float64(cells)
}

// digitBias is how much better a letter must match than the digit it
// resembles to be read in a field that holds letters and digits.
const digitBias = 0.06

// ambiguity is how close to the best score a class must come to be tried
// when a check digit fails.
const ambiguity = 0.12

// closeCall is how close any other reading must come to be tried, look-alike
// or not.
const closeCall = 0.04

// fixByChecks revisits the characters a failing check digit covers: among
// the readings whose scores come close to the best, it takes the highest
// scoring combination that makes the check pass. The check digits thereby
// arbitrate between look-alike glyphs with the evidence of the image.
func (rd *Reading) fixByChecks(format string) { rd.fixLines(format, -1) }

// fixLines is fixByChecks restricted to the check digits that lie wholly on
// line only (all check digits when only is -1).
func (rd *Reading) fixLines(format string, only int) {
	lay := layouts[format]
	ks, _ := lay.kinds()
	buf := make([][]byte, len(rd.Lines))
	for i, l := range rd.Lines {
		buf[i] = []byte(l)
	}
	checks := checksFor(lay, buf)
	covered := map[[2]int]bool{}
	for _, c := range checks {
		if c.name == CheckComposite || !c.verify(buf) {
			continue
		}
		for _, s := range append(append([]span{}, c.data...), c.digit) {
			for p := s.start; p < s.end; p++ {
				covered[[2]int{s.line, p}] = true
			}
		}
	}
	fieldsFail := false
	for _, c := range checksFor(lay, buf) {
		if only >= 0 && !onLine(c, only) {
			continue
		}
		if c.verify(buf) && typeOK(buf, ks, c) {
			continue
		}
		if c.name == CheckComposite && fieldsFail {
			// A field check that no look-alike fixes means the document
			// itself is off: a composite fix would be luck, not evidence.
			continue
		}
		var cands []scoredCand
		for _, s := range append(append([]span{}, c.data...), c.digit) {
			for p := s.start; p < s.end; p++ {
				if c.name == CheckComposite && covered[[2]int{s.line, p}] {
					continue
				}
				sc := rd.cells[s.line][p]
				cur := buf[s.line][p]
				var alts []byte
				var costs []float32
				allowed := allowedFor(ks[s.line][p])
				for i := 0; i < len(allowed); i++ {
					a := allowed[i]
					// The loss counts the digit preference and the name
					// prior, so undoing them is not free.
					d := sc[classIndex(cur)] + prior(ks[s.line][p], cur) - sc[classIndex(a)] - prior(ks[s.line][p], a)
					if a != cur && (d < ambiguity && lookAlike(a, cur) || d < closeCall) {
						alts, costs = append(alts, a), append(costs, max(d, 0))
					}
				}
				if len(alts) > 0 {
					cands = append(cands, scoredCand{s.line, p, alts, costs})
				}
			}
		}
		valid := func() bool {
			if !c.verify(buf) || !typeOK(buf, ks, c) {
				return false
			}
			switch c.name {
			case CheckDateOfBirth, CheckDateOfExpiry:
				_, _, _, ok := yymmdd(joined(buf, c.data))
				return ok
			}
			return true
		}
		cheapestFix(buf, cands, valid)
		if !c.verify(buf) {
			fieldsFail = true
		}
		if c.name != CheckComposite && c.verify(buf) {
			for _, s := range append(append([]span{}, c.data...), c.digit) {
				for p := s.start; p < s.end; p++ {
					covered[[2]int{s.line, p}] = true
				}
			}
		}
	}
	for i := range buf {
		rd.Lines[i] = string(buf[i])
	}
}

type scoredCand struct {
	line, pos int
	alts      []byte
	costs     []float32
}

// cheapestFix applies, among combinations of up to maxRepairs changes,
// the one of lowest total score loss that makes valid true.
func cheapestFix(buf [][]byte, cands []scoredCand, valid func() bool) {
	var bestSet []change
	bestCost := float32(math.MaxFloat32)
	cur := make([]change, 0, maxRepairs)
	var walk func(from int, cost float32)
	walk = func(from int, cost float32) {
		if cost >= bestCost {
			return
		}
		if len(cur) > 0 && valid() {
			bestCost, bestSet = cost, append(bestSet[:0], cur...)
			return
		}
		if len(cur) == maxRepairs {
			return
		}
		for i := from; i < len(cands); i++ {
			cd := cands[i]
			old := buf[cd.line][cd.pos]
			for j, a := range cd.alts {
				buf[cd.line][cd.pos] = a
				cur = append(cur, change{cd.line, cd.pos, a})
				walk(i+1, cost+cd.costs[j]+0.001)
				cur = cur[:len(cur)-1]
			}
			buf[cd.line][cd.pos] = old
		}
	}
	walk(0, 0)
	for _, ch := range bestSet {
		buf[ch.line][ch.pos] = ch.to
	}
}

func allowedFor(k kind) string {
	switch k {
	case kAlpha:
		return "ABCDEFGHIJKLMNOPQRSTUVWXYZ<"
	case kNum:
		return "0123456789"
	case kNumF:
		return "0123456789<"
	case kSex:
		return "MFX<"
	}
	return alphabet
}

func best(sc classScores, allowed string) byte {
	bc, bs := allowed[0], float32(-3)
	for i := 0; i < len(allowed); i++ {
		if s := sc[classIndex(allowed[i])]; s > bs {
			bc, bs = allowed[i], s
		}
	}
	return bc
}

// lookAlikes are the groups of MRZ glyphs that blur into each other; the
// reader only trades a reading for another of its group.
var lookAlikes = []string{"0OQDU", "1I", "2Z", "5S", "8BS", "6G", "<K"}

func lookAlike(a, b byte) bool {
	for _, g := range lookAlikes {
		if strings.IndexByte(g, a) >= 0 && strings.IndexByte(g, b) >= 0 {
			return true
		}
	}
	return false
}

// preferDigit returns the best digit that looks like letter c when it
// scores nearly as well: document numbers and optional data are mostly
// digits. Check digits cannot arbitrate some of these pairs (S is worth 28,
// so S and 8 weigh the same modulo 10).
func preferDigit(sc classScores, c byte) byte {
	if c < 'A' || c > 'Z' {
		return c
	}
	best, bs := c, sc[classIndex(c)]-digitBias
	for d := byte('0'); d <= '9'; d++ {
		if lookAlike(c, d) && sc[classIndex(d)] >= bs {
			best, bs = d, sc[classIndex(d)]
		}
	}
	return best
}

// letterFreq is roughly how often letters occur in names written in the
// Latin alphabet, in percent (an estimate: vowels, N, R, S, L lead; H, F,
// W are rarer than in running text; Q and X are rare). Names carry no check
// digit, so between two glyphs that match equally well the common letter
// is the better bet.
var letterFreq = map[byte]float64{
	'A': 11, 'E': 9.5, 'I': 8, 'N': 7.5, 'R': 7, 'O': 6.5, 'S': 6, 'L': 5.5, 'T': 4.5,
	'K': 4, 'M': 3.5, 'D': 3, 'U': 3, 'H': 2.5, 'C': 2.5, 'B': 2, 'G': 2, 'V': 2,
	'P': 1.8, 'J': 1.5, 'Z': 1.2, 'Y': 1, 'F': 0.9, 'W': 0.8, 'X': 0.2, 'Q': 0.1,
	'<': 11,
}

// namePrior weighs the log letter frequency against template correlation.
const namePrior = 0.01

// bestName picks a letter or filler of a name by correlation plus a small
// log-frequency prior.
func bestName(sc classScores) byte {
	const allowed = "ABCDEFGHIJKLMNOPQRSTUVWXYZ<"
	bc, bs := byte('<'), -1e9
	for i := 0; i < len(allowed); i++ {
		c := allowed[i]
		s := float64(sc[classIndex(c)]) + namePrior*math.Log(letterFreq[c]/11)
		if s > bs {
			bc, bs = c, s
		}
	}
	return bc
}

// prior is the bonus a reading gets before correlation decides: digits in
// document numbers and optional data.
func prior(k kind, c byte) float32 {
	if k == kAlnum && c >= '0' && c <= '9' {
		return digitBias
	}
	return 0
}
