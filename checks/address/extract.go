package address

import (
	"regexp"
	"strings"
)

// Address is the holder's address as printed and, where the lines allow,
// in parts.
type Address struct {
	Lines []string `json:"lines"`
	Parts Parts    `json:"parts"`
}

// Parts are the pieces of an address recognised by their form.
type Parts struct {
	HouseOrPlot string `json:"house_or_plot,omitempty"`
	Street      string `json:"street,omitempty"`
	Area        string `json:"estate_or_area,omitempty"`
	POBox       string `json:"po_box,omitempty"`
	PostalCode  string `json:"postal_code,omitempty"`
	Town        string `json:"town,omitempty"`
	Country     string `json:"country,omitempty"`
}

// POBoxOnly: the address is a post office box and nothing says where the
// holder lives.
func (p Parts) POBoxOnly() bool {
	return p.POBox != "" && p.HouseOrPlot == "" && p.Street == "" && p.Area == ""
}

var (
	poBoxRe   = regexp.MustCompile(`(?i)\b(?:P\s?[.,]?\s?O\s?[.,]?\s?BOX|POST\s+OFFICE\s+BOX|S\.?\s?L\.?\s?P\.?|BOX|SANDUKU\s+LA\s+POSTA)\s*(?:NO\.?\s*)?(\d{1,6})(?:\s*[-–]\s*(\d{5}))?`)
	houseRe   = regexp.MustCompile(`(?i)\b(?:HOUSE|HSE|PLOT|APT|APARTMENT|FLAT|UNIT|LR|L\.R\.|BLOCK|NO\.)\s*(?:NO\.?\s*)?([A-Z0-9][A-Z0-9/-]*)`)
	streetRe  = regexp.MustCompile(`(?i)\b([A-Z0-9][A-Z0-9' .-]*?\s(?:ROAD|RD|STREET|ST|AVENUE|AVE|LANE|LN|DRIVE|DR|WAY|CLOSE|CRESCENT|HIGHWAY|BOULEVARD|BLVD|BARABARA))\b\.?`)
	numStreet = regexp.MustCompile(`^\s*(\d{1,5}[A-Z]?)\s+([A-Z][A-Z' .-]+)$`)
	areaRe    = regexp.MustCompile(`(?i)\b([A-Z][A-Z' -]*\s(?:ESTATE|GARDENS|HEIGHTS|VILLAGE|SUBURB|PARK|COURT))\b`)
	postalRe  = regexp.MustCompile(`\b(\d{5})\b`)
	amountRe  = regexp.MustCompile(`\d[\d,]*\.\d{2}\b`)
)

// countries an address may end with.
var countries = []string{"KENYA", "UGANDA", "TANZANIA", "RWANDA", "BURUNDI", "ETHIOPIA", "SOUTH SUDAN",
	"NIGERIA", "GHANA", "SOUTH AFRICA", "ZAMBIA", "MALAWI", "UNITED KINGDOM", "UK", "USA", "FRANCE"}

// parseParts recognises parts of an address in its lines.
func parseParts(lines []string) Parts {
	var p Parts
	for _, l := range lines {
		up := strings.ToUpper(strings.TrimSpace(l))
		if m := poBoxRe.FindStringSubmatch(up); m != nil && p.POBox == "" {
			p.POBox = m[1]
			if m[2] != "" {
				p.PostalCode = m[2]
			}
			rest := strings.Trim(strings.TrimSpace(poBoxRe.ReplaceAllString(up, "")), ",-– ")
			if rest != "" && p.Town == "" && !strings.ContainsAny(rest, "0123456789") {
				p.Town = rest
			}
			continue
		}
		for _, c := range countries {
			if up == c || strings.HasSuffix(up, ", "+c) || strings.HasSuffix(up, " "+c) && len(up) < len(c)+25 {
				p.Country = c
				up = strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(up, c), ","))
				break
			}
		}
		if up == "" {
			continue
		}
		matched := false
		if m := houseRe.FindStringSubmatch(up); m != nil && p.HouseOrPlot == "" {
			p.HouseOrPlot, matched = m[0], true
		}
		if m := streetRe.FindStringSubmatch(up); m != nil && p.Street == "" {
			p.Street, matched = strings.TrimSpace(m[1]), true
		} else if m := numStreet.FindStringSubmatch(up); m != nil && p.Street == "" && p.HouseOrPlot == "" {
			p.HouseOrPlot, p.Street, matched = m[1], m[2], true
		}
		if m := areaRe.FindStringSubmatch(up); m != nil && p.Area == "" {
			p.Area, matched = strings.TrimSpace(m[1]), true
		}
		if matched {
			continue
		}
		if m := postalRe.FindStringSubmatch(up); m != nil && p.PostalCode == "" {
			p.PostalCode = m[1]
			if town := strings.Trim(strings.TrimSpace(postalRe.ReplaceAllString(up, "")), ",-– "); town != "" {
				p.Town = town
			}
			continue
		}
		if p.Town == "" && len(strings.Fields(up)) <= 3 && !strings.ContainsAny(up, "0123456789") {
			p.Town = strings.Trim(up, ", ")
		} else if p.Area == "" && !strings.ContainsAny(up, "0123456789") {
			p.Area = strings.Trim(up, ", ")
		}
	}
	return p
}

// Labels of the holder's name and address on bills and statements.
var (
	nameLabels = []string{"CUSTOMER NAME", "ACCOUNT NAME", "ACCOUNT HOLDER", "NAME OF CUSTOMER", "CONSUMER NAME",
		"BILL TO", "BILLED TO", "JINA LA MTEJA", "JINA", "NOM DU CLIENT", "TITULAIRE", "NOMBRE", "CUSTOMER", "NAME"}
	addressLabels = []string{"SERVICE ADDRESS", "SUPPLY ADDRESS", "PREMISES ADDRESS", "POSTAL ADDRESS", "BILLING ADDRESS",
		"PREMISES", "ADDRESS", "ANWANI", "ADRESSE", "DIRECCION", "LOCATION"}
)

// labelValue finds a label at the start of line and returns what follows
// it (empty when the value is on the next line).
func labelValue(line string, labels []string) (string, bool) {
	t := strings.TrimSpace(line)
	for _, l := range labels {
		if len(t) < len(l) || !strings.EqualFold(t[:len(l)], l) {
			continue
		}
		rest := strings.TrimSpace(t[len(l):])
		if rest != "" && rest[0] != ':' && rest[0] != '-' && isLetter(strings.ToUpper(rest[:1])[0]) {
			continue // a longer word, not this label ("NAMED")
		}
		return strings.TrimSpace(strings.TrimLeft(rest, ":- ")), true
	}
	return "", false
}

// looksLabel: a line that starts a new labelled item ("Account No: 123").
func looksLabel(line string) bool {
	i := strings.IndexByte(line, ':')
	return i > 0 && i < 30
}

// holder finds the holder's name and address block in the page's lines.
// Labels decide first (CUSTOMER NAME, ADDRESS...), with the value after
// the label, to its right or below it. Bills without labels print an
// addressee block: a name line with address lines under it; the name line
// is the one that best matches the ID holder or, failing that, a
// name-like line with an address-like one under it.
func holder(lines []Line, holderNames []string) (name string, addr []string) {
	name, addr, _ = holderOf(lines, holderNames)
	return name, addr
}

// holderOf is holder that also says whether the name was found by a label
// (the first labelled name is taken, so lines further down cannot change
// it) rather than as the best addressee block.
func holderOf(lines []Line, holderNames []string) (name string, addr []string, labelled bool) {
	nameAt, addrAt := -1, -1
	valueOf := func(i int, v string) (string, int) {
		if v != "" {
			return v, i
		}
		if j := rightOf(lines, i); j >= 0 {
			return lines[j].Text, j
		}
		if j := below(lines, i); j >= 0 {
			return lines[j].Text, j
		}
		return "", -1
	}
	for i, l := range lines {
		if nameAt < 0 {
			if v, ok := labelValue(l.Text, nameLabels); ok {
				name, nameAt = valueOf(i, v)
				name = trimName(name)
				labelled = nameAt >= 0
				continue
			}
		}
		if addrAt < 0 {
			if v, ok := labelValue(l.Text, addressLabels); ok {
				first, at := valueOf(i, v)
				if at >= 0 {
					addrAt = at
					addr = append([]string{splitGlued(strings.TrimSpace(first))}, block(lines, at)...)
				}
			}
		}
	}
	if nameAt < 0 {
		best, bestScore := -1, 0.0
		for i, l := range lines {
			if !nameLike(l.Text) {
				continue
			}
			s := 0.1 // a name-like line: the weakest evidence
			if j := below(lines, i); j >= 0 && addressLike(lines[j].Text) {
				s += 0.4
			}
			if len(holderNames) > 0 {
				s += MatchName(l.Text, holderNames).Score
			}
			if s > bestScore {
				best, bestScore = i, s
			}
		}
		if best >= 0 && bestScore >= 0.5 {
			name, nameAt = trimName(lines[best].Text), best
		}
	}
	if addrAt < 0 && nameAt >= 0 {
		addr = block(lines, nameAt)
	}
	return name, addr, labelled
}

// block is the run of address lines under line i (at most six).
func block(lines []Line, i int) []string {
	var out []string
	for j := below(lines, i); j >= 0 && len(out) < 6; j = below(lines, j) {
		l := strings.TrimSpace(lines[j].Text)
		if l == "" || looksLabel(l) || amountRe.MatchString(l) || len(findDates(l)) > 0 {
			break
		}
		if _, ok := labelValue(l, nameLabels); ok {
			break
		}
		// A full stop or comma ending a line is noise OCR reads off the
		// paper more often than print.
		out = append(out, splitGlued(strings.TrimRight(l, ".,")))
	}
	return out
}

// gluedTypes are the words naming a kind of street or estate that OCR
// runs into the name before them when the space between is narrow
// (KENYATTAAVENUE: the last A of the name and the A of AVENUE lean
// together). Shorter ones (WAY, ST, RD, PARK) end too many ordinary words
// to be split off.
var gluedTypes = []string{"AVENUE", "ROAD", "STREET", "DRIVE", "LANE", "CLOSE", "CRESCENT", "HIGHWAY", "BOULEVARD",
	"ESTATE", "GARDENS", "HEIGHTS"}

var letterRun = regexp.MustCompile(`\pL{7,}`)

// splitGlued puts the space back between a name and the type of street
// or estate that follows it when OCR lost it: a word of letters that ends
// in one of gluedTypes after at least three letters of its own.
func splitGlued(line string) string {
	return letterRun.ReplaceAllStringFunc(line, func(w string) string {
		up := strings.ToUpper(w)
		for _, t := range gluedTypes {
			if len(up) >= len(t)+3 && strings.HasSuffix(up, t) {
				cut := len(w) - len(t)
				return w[:cut] + " " + w[cut:]
			}
		}
		return w
	})
}

// trimName drops the stop or comma OCR reads off the paper after a name
// (as after an address line), but keeps the stop of an initial
// ("AMINA M.").
func trimName(s string) string {
	s = strings.TrimSpace(s)
	if w := strings.Fields(s); len(w) > 0 && len(strings.TrimRight(w[len(w)-1], ".,")) > 1 {
		s = strings.TrimRight(s, ".,")
	}
	return s
}

var nameTitle = regexp.MustCompile(`(?i)^(MR|MRS|MS|MISS|DR|PROF|ENG|REV)\.?\s`)

// nameLike: two to five words of letters, as a person's name is printed.
func nameLike(l string) bool {
	l = strings.TrimSpace(l)
	if looksLabel(l) || strings.ContainsAny(l, "0123456789@") {
		return false
	}
	words := strings.Fields(l)
	if len(words) < 2 || len(words) > 5 {
		return false
	}
	if nameTitle.MatchString(l) {
		return true
	}
	up := strings.ToUpper(l)
	for _, w := range []string{"LTD", "LIMITED", "BANK", "POWER", "WATER", "COMPANY", "STATEMENT", "BILL", "ACCOUNT",
		"ROAD", "STREET", "AVENUE", "ESTATE", "BOX", "TOTAL", "BALANCE", "SUMMARY", "CUSTOMER", "SERVICE", "PLC"} {
		if containsWord(" "+up+" ", w) {
			return false
		}
	}
	return true
}

func addressLike(l string) bool {
	up := strings.ToUpper(l)
	return poBoxRe.MatchString(up) || houseRe.MatchString(up) || streetRe.MatchString(up) || areaRe.MatchString(up) ||
		numStreet.MatchString(up)
}
