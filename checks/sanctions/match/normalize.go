// Package match screens names against sanctions and PEP lists. It
// normalises names (case, diacritics, transliteration, punctuation,
// honorifics, company suffixes, Arabic particles), aligns the tokens of the
// query with those of each listed name using Jaro-Winkler similarity and
// phonetic keys, weights tokens by their rarity in the lists, and scores
// coverage of both names and their whole-name similarity, adjusted by
// date of birth and nationality. An index over character deletion
// variants of the tokens (up to two per side, so two typos in a word are
// found; three-letter words by their one-letter deletions) and over
// phonetic keys finds the candidates, so a query scores only the names
// that share a near token with it. Entities listed under an identical
// name with the same score share a rank. Every hit carries the score
// pieces that produced it.
package match

import (
	"sort"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// tokenClass says how much a token may count.
type tokenClass uint8

const (
	// className is an ordinary name token.
	className tokenClass = iota
	// classParticle is a connecting word (BIN, ABU, DE, VAN): aligned, but
	// with a small weight.
	classParticle
)

// token is one normalised word of a name.
type token struct {
	text  string
	phon  string
	class tokenClass
}

// letterMap spells letters that NFKD does not decompose.
var letterMap = map[rune]string{
	'ß': "SS", 'ẞ': "SS", 'Ø': "O", 'ø': "O", 'Æ': "AE", 'æ': "AE", 'Œ': "OE", 'œ': "OE",
	'Ł': "L", 'ł': "L", 'Đ': "D", 'đ': "D", 'Ð': "D", 'ð': "D", 'Þ': "TH", 'þ': "TH",
	'ı': "I", 'Ə': "A", 'ə': "A", 'Ħ': "H", 'ħ': "H", 'ŉ': "N",
}

// dropped entirely: titles before a name.
var honorifics = set("MR", "MRS", "MS", "MISS", "DR", "PROF", "SIR", "DAME", "GEN", "COL", "COLONEL", "CAPT",
	"CAPTAIN", "LT", "MAJ", "ENG", "ENGR", "HON", "REV")

// religious and customary titles that lists also use inside names
// (Khalid Sheikh MOHAMMED): kept as particles with a small weight.
var titles = map[string]string{"HAJI": "HAJI", "HAJJI": "HAJI", "HAJ": "HAJI", "ALHAJI": "HAJI", "ALHAJ": "HAJI",
	"MAULAVI": "MAULAVI", "MAULVI": "MAULAVI", "MAWLAWI": "MAULAVI", "MAWLAVI": "MAULAVI", "MOULAVI": "MAULAVI",
	"MULLAH": "MULLAH", "MULLA": "MULLAH", "SHAYKH": "SHEIKH", "SHEIKH": "SHEIKH", "SHAIKH": "SHEIKH",
	"SHEIK": "SHEIKH", "QARI": "QARI", "MUFTI": "MUFTI", "IMAM": "IMAM"}

// Arabic definite articles, written apart or hyphenated (AL-ZAWAHIRI):
// dropped, so AL ZAWAHIRI, AL-ZAWAHIRI and ZAWAHIRI compare equal.
var articles = set("AL", "EL", "UL", "AD", "AR", "AS", "ASH", "AZ", "AT", "ADH", "AN", "ET", "ED", "ES")

// particles keep a small weight; variants map to one spelling.
var particles = map[string]string{
	"BIN": "BIN", "IBN": "BIN", "BEN": "BIN", "BINT": "BINT", "BINTI": "BINT", "BNT": "BINT",
	"ABU": "ABU", "ABOU": "ABU", "ABO": "ABU", "ABUL": "ABU", "UMM": "UMM", "OUM": "UMM",
	"ABD": "ABD", "ABDUL": "ABD", "ABDEL": "ABD", "ABDAL": "ABD", "ABDOUL": "ABD", "ABDOL": "ABD",
	"ABDU": "ABD", "ABDULLAH": "ABDALLAH", "ABDALLAH": "ABDALLAH", "ABDELLAH": "ABDALLAH",
	"DE": "DE", "DA": "DE", "DI": "DE", "DO": "DE", "DOS": "DE", "DAS": "DE", "DEL": "DE", "DELLA": "DE",
	"LA": "LA", "LE": "LA", "LOS": "LA", "LAS": "LA", "VAN": "VAN", "VON": "VAN", "DER": "DER",
	"DEN": "DER", "Y": "Y", "E": "Y", "AND": "Y", "OF": "OF", "THE": "THE",
}

// company suffixes and legal forms, dropped from the compared tokens.
var suffixes = set("LLC", "LTD", "LIMITED", "INC", "INCORPORATED", "CORP", "CORPORATION", "COMPANY",
	"SAS", "SARL", "SRL", "SAPI", "SAB", "GMBH", "OOO", "OAO", "ZAO", "PAO", "PJSC", "JSC", "CJSC", "OJSC",
	"LLP", "PLC", "PTE", "PVT", "PTY", "BHD", "FZE", "FZCO", "FZC", "DMCC", "KFT", "SPZOO", "EIRL", "LTDA",
	"CIA", "EOOD", "OOD", "DOO", "SCS", "SNC", "EURL", "TBK")

// weakSuffixes are legal forms that are also words or names (TOO, SA,
// CO): dropped only after two other words.
var weakSuffixes = set("CO", "SA", "SL", "SPA", "CV", "AG", "KG", "AO", "LP", "BV", "NV", "SDN", "FZ", "AB",
	"AS", "OY", "SE", "TOO", "CA", "AD", "SC", "PT", "JV", "EST", "DE")

// longSuffixes are recognised through a typo too (COMPNY, LIMITTED).
var longSuffixes = []string{"LIMITED", "COMPANY", "CORPORATION", "INCORPORATED"}

// generic words of company names: they may match but carry little.
var generic = set("TRADING", "TRADE", "GROUP", "INTERNATIONAL", "GLOBAL", "HOLDING", "HOLDINGS", "INVESTMENT",
	"INVESTMENTS", "SERVICES", "SERVICE", "INDUSTRIES", "INDUSTRIAL", "INDUSTRY", "ENTERPRISE", "ENTERPRISES",
	"GENERAL", "TECHNOLOGY", "TECHNOLOGIES", "LOGISTICS", "SHIPPING", "IMPORT", "EXPORT", "CONSTRUCTION",
	"DEVELOPMENT", "MANAGEMENT", "CONSULTING", "SOLUTIONS", "SYSTEMS", "PARTNERS", "VENTURES", "AGENCY",
	"BANK", "FINANCE", "FINANCIAL", "CAPITAL", "ENERGY", "OIL", "GAS", "PETROLEUM", "COMMERCIAL", "SUPPLY",
	"SUPPLIES", "MARINE", "MARITIME", "CENTER", "CENTRE", "NATIONAL", "FOUNDATION", "ASSOCIATION", "UNION",
	"ORGANIZATION", "ORGANISATION", "INSTITUTE", "FACTORY", "PLANT", "MINING", "AIR", "AIRLINES", "TRAVEL",
	"TOURS", "HOTEL", "HOTELS", "MEDIA", "NETWORK", "EXCHANGE", "MONEY", "PROPERTIES", "REAL", "ESTATE",
	"TRANSPORT", "AUTO", "MOTORS", "ELECTRONICS", "ENGINEERING", "PHARMA", "CHEMICAL", "CHEMICALS",
	"AGRICULTURAL", "FOOD", "FOODS", "NEW", "FIRST", "UNITED", "EAST", "WEST", "NORTH", "SOUTH", "MIDDLE",
	"HARDWARE", "WHOLESALE", "RETAIL", "STORES", "STORE", "SHOP", "BUILDERS", "CONTRACTORS")

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// fold upper-cases s, removes diacritics, joins dotted abbreviations
// (S.A. becomes SA), drops apostrophes and turns every other non-letter,
// non-digit into a space.
func fold(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	// Combining marks go first, so that the dot rule below sees the
	// letter of Š.A. and not its caron.
	rs := []rune(norm.NFKD.String(s))
	kept := rs[:0]
	for _, r := range rs {
		if !unicode.Is(unicode.Mn, r) {
			kept = append(kept, r)
		}
	}
	rs = kept
	for i, r := range rs {
		switch {
		case r == '\'' || r == '’' || r == '`' || r == 'ʻ' || r == 'ʼ' || r == '‘' || r == 'ʿ' || r == 'ʾ':
			continue
		case r == '.':
			// A dot between two letters joins them (S.A., U.S.A.).
			if i > 0 && i+1 < len(rs) && unicode.IsLetter(rs[i-1]) && unicode.IsLetter(rs[i+1]) && nextToInitial(rs, i) {
				continue
			}
			b.WriteByte(' ')
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if m, ok := letterMap[r]; ok {
				b.WriteString(m)
				continue
			}
			b.WriteRune(unicode.ToUpper(r))
		default:
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// nextToInitial reports whether the dot at i follows or precedes a single
// letter (S.A., S.RL.), not a dot between two words (CO.LTD).
func nextToInitial(rs []rune, i int) bool {
	return (i < 2 || !unicode.IsLetter(rs[i-2])) || (i+2 >= len(rs) || !unicode.IsLetter(rs[i+2]))
}

// reorder turns "LAST, First" into "First LAST" for names of people, as
// OFAC and the CSL write them. Organisations keep their commas' order.
func reorder(name string, person bool) string {
	if !person {
		return name
	}
	last, first, ok := strings.Cut(name, ",")
	if !ok || strings.Contains(first, ",") {
		return name
	}
	first = strings.TrimSpace(first)
	if first == "" {
		return name
	}
	// "ACHIM DEVELOPMENT, OOO": a legal form after the comma is no first name.
	if f := strings.Fields(fold(first)); len(f) >= 1 && (suffixes[f[0]] || weakSuffixes[f[0]]) {
		return name
	}
	return first + " " + strings.TrimSpace(last)
}

// tokenize normalises a name into tokens. person says whether a comma
// separates surname from given names.
func tokenize(name string, person bool) (toks []token, company bool) {
	words := strings.Fields(fold(reorder(name, person)))
	drop := make([]bool, len(words))
	// Legal forms: strong ones anywhere after the first word, weak ones
	// at the end after two other words (S.A. DE C.V. is three).
	for i := len(words) - 1; i >= 0; i-- {
		w := words[i]
		switch {
		case suffixes[w] || isSuffixTypo(w):
			// Anywhere: OOO MOKBRAL and LTD. KOKSOKHIMTRANS lead with it.
			drop[i], company = true, true
		case weakSuffixes[w] && i >= 2 && (i == len(words)-1 || drop[i+1]):
			drop[i], company = true, true
		}
	}
	for i, w := range words {
		if drop[i] || honorifics[w] || articles[w] {
			continue
		}
		t := token{text: w}
		if p, ok := particles[w]; ok {
			t.text, t.class = p, classParticle
		} else if p, ok := titles[w]; ok {
			t.text, t.class = p, classParticle
		}
		t.phon = phonetic(t.text)
		toks = append(toks, t)
	}
	if len(toks) == 0 {
		// A name made only of dropped words (SHEIKH, AL) is still a name.
		for _, w := range words {
			toks = append(toks, token{text: w, phon: phonetic(w)})
		}
	}
	return toks, company
}

// Normalize returns the normalised form of a name as the matcher compares
// it: tokens separated by single spaces.
func Normalize(name string) string {
	toks, _ := tokenize(name, true)
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = t.text
	}
	return strings.Join(out, " ")
}

// phonetic is a key for transliteration variants of the same name:
// digraphs reduced (PH F, KH K, SH S, TH T, DH D, GH G, CK K, Q K, C K
// except before E I Y, Z S, W V, J and DJ J, X KS), vowels and H, W, Y
// dropped after the first letter, runs collapsed. MOHAMMED, MUHAMMAD and
// MOHAMED share MHMD; HUSSEIN, HUSAYN and HOSEIN share HSN.
func phonetic(s string) string {
	if s == "" {
		return ""
	}
	b := []byte(s)
	var out []byte
	var last byte
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c >= 0x80 {
			// Non-Latin scripts: no key.
			return ""
		}
		var next byte
		if i+1 < len(b) {
			next = b[i+1]
		}
		switch c {
		case 'P':
			if next == 'H' {
				c, i = 'F', i+1
			}
		case 'K', 'G', 'S', 'T', 'D', 'Z':
			if next == 'H' {
				i++
			}
			switch c {
			case 'Z':
				c = 'S'
			case 'D':
				if next == 'J' || next == 'Z' {
					c, i = 'J', i+1
				}
			}
			if c == 'S' && next == 'C' && i+2 < len(b) && b[i+2] == 'H' {
				i += 2
			}
		case 'C':
			switch next {
			case 'H':
				c, i = 'S', i+1
			case 'K':
				c, i = 'K', i+1
			case 'E', 'I', 'Y':
				c = 'S'
			default:
				c = 'K'
			}
		case 'Q':
			c = 'K'
		case 'W':
			c = 'V'
		case 'X':
			if len(out) > 0 {
				out = append(out, 'K')
			}
			c = 'S'
		}
		vowel := c == 'A' || c == 'E' || c == 'I' || c == 'O' || c == 'U' || c == 'Y' || c == 'H' || (c == 'V' && b[i] == 'W' && len(out) > 0)
		if len(out) == 0 {
			if vowel && c != 'H' {
				c = 'A' // any leading vowel: ISMAIL, ESMAIL
			}
			out = append(out, c)
			last = c
			continue
		}
		if vowel {
			last = 0
			continue
		}
		if c == last {
			continue
		}
		out = append(out, c)
		last = c
	}
	return string(out)
}

// NaturalOrder returns a listed name in the order people write it:
// "CIFUENTES VILLA, Jorge Milton" becomes "Jorge Milton CIFUENTES VILLA"
// for a person; organisations are returned as listed.
func NaturalOrder(name string, person bool) string { return reorder(name, person) }

func isSuffixTypo(w string) bool {
	if len(w) < 6 {
		return false
	}
	for _, s := range longSuffixes {
		if editSim(w, s) >= 0.8 {
			return true
		}
	}
	return false
}

// particleTypo returns the particle or title a word misspells (AZDUL for
// ABDUL, SHAYHK for SHAYKH), or "": a slip in a particle must not turn it
// into a heavy unknown word. The index asks only for words it does not
// know.
func particleTypo(w string) string {
	if len(w) < 4 || len(w) > 9 {
		return ""
	}
	for _, p := range lightWords {
		if p.spelling[0] != w[0] || abs(len(p.spelling)-len(w)) > 1 {
			continue
		}
		if editSim(w, p.spelling) >= 0.8 {
			return p.canon
		}
	}
	return ""
}

// lightWords are the spellings particleTypo compares with, longest
// first and then alphabetical, so that the answer never depends on map
// order.
var lightWords = func() []struct{ spelling, canon string } {
	var out []struct{ spelling, canon string }
	for _, m := range []map[string]string{particles, titles} {
		for p, c := range m {
			if len(p) >= 4 {
				out = append(out, struct{ spelling, canon string }{p, c})
			}
		}
	}
	for h := range honorifics {
		if len(h) >= 5 {
			out = append(out, struct{ spelling, canon string }{h, h})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if len(out[i].spelling) != len(out[j].spelling) {
			return len(out[i].spelling) > len(out[j].spelling)
		}
		return out[i].spelling < out[j].spelling
	})
	return out
}()

// suffixResidue reports whether a short word looks like a mangled legal
// form (LTEDA, S AY, C VD): within a letter of one and at most 5 long.
func suffixResidue(w string) bool {
	if len(w) > 5 {
		return false
	}
	for _, m := range []map[string]bool{suffixes, weakSuffixes} {
		for s := range m {
			if abs(len(s)-len(w)) > 1 || len(s) > 5 || (w[0] != s[0] && w[len(w)-1] != s[len(s)-1]) {
				continue
			}
			// One slip: 0.6 or more, or 0.5 between two-letter forms.
			if e := editSim(w, s); e >= 0.6 || (e >= 0.5 && len(w) <= 2) {
				return true
			}
		}
	}
	return false
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}
