package mrz

// OCR repair. A reader confuses glyphs that look alike; the field type of a
// position tells which reading is possible (a date holds digits, a name
// letters), and the check digits tell which of the possible readings is
// right. A repair is kept only when it makes a failing check digit pass, and
// only when it is the single smallest change that does.

// Confusions of letters read for digits, and the reverse.
var (
	letterToDigit = map[byte]byte{'O': '0', 'Q': '0', 'D': '0', 'I': '1', 'B': '8', 'S': '5', 'Z': '2', 'G': '6'}
	digitToLetter = map[byte]byte{'0': 'O', '1': 'I', '8': 'B', '5': 'S', '2': 'Z', '6': 'G'}
	// Glyphs a reader sees in the chevron of the filler.
	readForFiller = map[byte]bool{'K': true, 'X': true, 'S': true, 'G': true}
)

// maxRepairs bounds the characters changed to fix one check digit: beyond
// it, some combination passes by chance too often to be evidence.
const maxRepairs = 3

// alternatives lists the characters c may have been printed as at a
// position of kind k.
func alternatives(c byte, k kind) []byte {
	var out []byte
	switch k {
	case kNum:
		if d, ok := letterToDigit[c]; ok {
			out = append(out, d)
		}
	case kNumF:
		if d, ok := letterToDigit[c]; ok {
			out = append(out, d)
		}
		if readForFiller[c] {
			out = append(out, '<')
		}
	case kAlnum:
		if d, ok := letterToDigit[c]; ok {
			out = append(out, d)
		}
		if l, ok := digitToLetter[c]; ok {
			out = append(out, l)
		}
		if readForFiller[c] {
			out = append(out, '<')
		}
	case kAlpha:
		if l, ok := digitToLetter[c]; ok {
			out = append(out, l)
		}
	}
	return out
}

// kinds returns the kind of every position of a layout, with the name of
// the field it belongs to.
func (l *layout) kinds() ([][]kind, [][]string) {
	ks := make([][]kind, l.lines)
	names := make([][]string, l.lines)
	for i := range ks {
		ks[i] = make([]kind, l.width)
		names[i] = make([]string, l.width)
	}
	for _, f := range l.fields {
		for p := f.sp.start; p < f.sp.end; p++ {
			ks[f.sp.line][p] = f.k
			names[f.sp.line][p] = f.name
		}
	}
	return ks, names
}

type change struct {
	line, pos int
	to        byte
}

type candidate struct {
	line, pos int
	alts      []byte
}

// repair changes buf in place and returns the changes made.
func repair(lay *layout, buf [][]byte) []Repair {
	ks, names := lay.kinds()
	var done []Repair
	apply := func(chs []change) {
		for _, ch := range chs {
			done = append(done, Repair{Line: ch.line + 1, Position: ch.pos + 1,
				From: string(buf[ch.line][ch.pos]), To: string(ch.to), Field: names[ch.line][ch.pos]})
			buf[ch.line][ch.pos] = ch.to
		}
	}

	// Digits in a name are always misreadings; no check digit covers the
	// name, so the field type alone decides.
	for _, f := range lay.fields {
		if f.name != "name" {
			continue
		}
		for p := f.sp.start; p < f.sp.end; p++ {
			if l, ok := digitToLetter[buf[f.sp.line][p]]; ok {
				apply([]change{{f.sp.line, p, l}})
			}
		}
	}
	// K is worth 20, so a K read for a filler never changes a check digit:
	// only the structure tells. A K, X, S or G standing alone in the filler
	// run of a name or optional field is a misread filler.
	for _, f := range lay.fields {
		if f.k != kAlnum && f.name != "name" {
			continue
		}
		left := 2
		if f.name == "name" {
			left = 3 // a one-letter given name follows a double filler
		}
		for p := f.sp.start; p < f.sp.end; p++ {
			if readForFiller[buf[f.sp.line][p]] && inFillerRun(buf[f.sp.line], p, f.sp.start, f.sp.end, left) {
				apply([]change{{f.sp.line, p, '<'}})
			}
		}
	}

	checks := checksFor(lay, buf)
	covered := map[[2]int]bool{}
	for _, c := range checks {
		if c.name == CheckComposite {
			continue
		}
		for _, s := range append(append([]span{}, c.data...), c.digit) {
			for p := s.start; p < s.end; p++ {
				covered[[2]int{s.line, p}] = true
			}
		}
	}
	for _, c := range checks {
		if c.verify(buf) && typeOK(buf, ks, c) {
			continue
		}
		var cands []candidate
		add := func(s span) {
			for p := s.start; p < s.end; p++ {
				if c.name == CheckComposite && covered[[2]int{s.line, p}] {
					// Fields with their own check digit were settled above.
					continue
				}
				if alts := alternatives(buf[s.line][p], ks[s.line][p]); len(alts) > 0 {
					cands = append(cands, candidate{s.line, p, alts})
				}
			}
		}
		for _, s := range c.data {
			add(s)
		}
		add(c.digit)
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
		if chs, ok := smallestFix(buf, cands, valid); ok {
			apply(chs)
		}
	}
	return done
}

// smallestFix searches changes of growing size among cands for those that
// make valid true, and returns the fix when exactly one of the smallest
// size exists. buf is left unchanged.
func smallestFix(buf [][]byte, cands []candidate, valid func() bool) ([]change, bool) {
	for size := 1; size <= maxRepairs && size <= len(cands); size++ {
		var found []change
		n := 0
		cur := make([]change, 0, size)
		var walk func(from int)
		walk = func(from int) {
			if n > 1 {
				return
			}
			if len(cur) == size {
				if valid() {
					n++
					found = append(found[:0], cur...)
				}
				return
			}
			for i := from; i < len(cands); i++ {
				cd := cands[i]
				old := buf[cd.line][cd.pos]
				for _, a := range cd.alts {
					buf[cd.line][cd.pos] = a
					cur = append(cur, change{cd.line, cd.pos, a})
					walk(i + 1)
					cur = cur[:len(cur)-1]
				}
				buf[cd.line][cd.pos] = old
			}
		}
		walk(0)
		if n == 1 {
			return found, true
		}
		if n > 1 {
			return nil, false // ambiguous: no evidence for one reading
		}
	}
	return nil, false
}

// typeOK reports whether the numeric positions a check covers hold digits
// (or fillers where allowed): a check digit can pass by chance over a
// letter read in a date.
func typeOK(buf [][]byte, ks [][]kind, c checkDef) bool {
	for _, s := range append(append([]span{}, c.data...), c.digit) {
		for p := s.start; p < s.end; p++ {
			ch := buf[s.line][p]
			switch ks[s.line][p] {
			case kNum:
				if ch < '0' || ch > '9' {
					return false
				}
			case kNumF:
				if (ch < '0' || ch > '9') && ch != '<' {
					return false
				}
			}
		}
	}
	return true
}

// inFillerRun reports whether position p of line lies inside a run of
// fillers: at least left fillers before it (or the field start) and a
// filler or the field end after it.
func inFillerRun(line []byte, p, start, end, left int) bool {
	for i := 1; i <= left; i++ {
		if p-i < start {
			break
		}
		if line[p-i] != '<' {
			return false
		}
	}
	if p-1 < start {
		return false
	}
	return p+1 >= end || line[p+1] == '<'
}
