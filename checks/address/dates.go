package address

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

var months = map[string]time.Month{
	"JAN": 1, "JANUARY": 1, "FEB": 2, "FEBRUARY": 2, "MAR": 3, "MARCH": 3, "APR": 4, "APRIL": 4,
	"MAY": 5, "JUN": 6, "JUNE": 6, "JUL": 7, "JULY": 7, "AUG": 8, "AUGUST": 8, "SEP": 9, "SEPT": 9,
	"SEPTEMBER": 9, "OCT": 10, "OCTOBER": 10, "NOV": 11, "NOVEMBER": 11, "DEC": 12, "DECEMBER": 12,
}

var (
	numericDate = regexp.MustCompile(`\b(\d{1,2})\s?[./-]\s?(\d{1,2})\s?[./-]\s?(\d{4}|\d{2})\b`)
	isoDate     = regexp.MustCompile(`\b(\d{4})-(\d{2})-(\d{2})\b`)
	dayMonth    = regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th)?[\s-]+([A-Z]{3,9})\.?,?[\s-]+(\d{4})\b`)
	monthDay    = regexp.MustCompile(`(?i)\b([A-Z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b`)
)

// dateAt is a date found in a line and where it starts.
type dateAt struct {
	t   time.Time
	pos int
}

// findDates returns the calendar dates written in a line. Numeric dates
// are read day first (dd/mm/yyyy), as in East Africa and most of the
// world; a first number above 12 can only be a day, and a second above
// 12 turns the reading month first (US statements).
func findDates(line string) []dateAt {
	var out []dateAt
	add := func(y, m, d int, pos int) {
		if y < 100 {
			y += 2000
		}
		if m < 1 || m > 12 || d < 1 || d > 31 || y < 1900 || y > 2200 {
			return
		}
		t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
		if t.Day() != d { // 31 April and the like
			return
		}
		out = append(out, dateAt{t, pos})
	}
	taken := make([]bool, len(line)+1)
	mark := func(loc []int) bool {
		for i := loc[0]; i < loc[1]; i++ {
			if taken[i] {
				return false
			}
		}
		for i := loc[0]; i < loc[1]; i++ {
			taken[i] = true
		}
		return true
	}
	for _, m := range isoDate.FindAllStringSubmatchIndex(line, -1) {
		if mark(m[:2]) {
			add(atoi(line[m[2]:m[3]]), atoi(line[m[4]:m[5]]), atoi(line[m[6]:m[7]]), m[0])
		}
	}
	for _, m := range numericDate.FindAllStringSubmatchIndex(line, -1) {
		if !mark(m[:2]) {
			continue
		}
		a, b, y := atoi(line[m[2]:m[3]]), atoi(line[m[4]:m[5]]), atoi(line[m[6]:m[7]])
		if b > 12 && a <= 12 {
			a, b = b, a
		}
		add(y, b, a, m[0])
	}
	for _, m := range dayMonth.FindAllStringSubmatchIndex(line, -1) {
		if mon, ok := months[strings.ToUpper(line[m[4]:m[5]])]; ok && mark(m[:2]) {
			add(atoi(line[m[6]:m[7]]), int(mon), atoi(line[m[2]:m[3]]), m[0])
		}
	}
	for _, m := range monthDay.FindAllStringSubmatchIndex(line, -1) {
		if mon, ok := months[strings.ToUpper(line[m[2]:m[3]])]; ok && mark(m[:2]) {
			add(atoi(line[m[6]:m[7]]), int(mon), atoi(line[m[4]:m[5]]), m[0])
		}
	}
	return out
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// Labels that say a date is the document's date, and labels of other
// dates on a bill, in the languages East African bills are printed in.
var (
	issueLabels = []string{"BILL DATE", "STATEMENT DATE", "DATE OF ISSUE", "ISSUE DATE", "DATE ISSUED",
		"INVOICE DATE", "BILLING DATE", "PRINTED ON", "DATE PRINTED", "TAREHE YA BILI", "DATE DE FACTURE",
		"DATE D'EMISSION", "FECHA DE EMISION", "DATUM", "DATE"}
	otherLabels = []string{"DUE", "PAY BY", "PAYABLE BY", "LAST PAYMENT", "PREVIOUS", "READING", "NEXT",
		"BIRTH", "OPENED", "SINCE", "EXPIR", "VALID", "DISCONNECT"}
	periodLabels = []string{"PERIOD", "FROM", "BILLING CYCLE", "STATEMENT FOR"}
)

// issueDate picks the document's date from its lines: a date labelled as
// the bill or statement date first; then the end of a statement period;
// then the latest date on the page that no other label claims. A date's
// label is the text before it, the line to its left, or the line above.
func issueDate(lines []Line) (time.Time, string, bool) {
	type cand struct {
		t    time.Time
		rank int
		src  string
	}
	var best *cand
	consider := func(c cand) {
		if best == nil || c.rank > best.rank || c.rank == best.rank && c.t.After(best.t) {
			best = &c
		}
	}
	for i, line := range lines {
		dates := findDates(line.Text)
		if len(dates) == 0 {
			continue
		}
		// The label is the text before the date; a date printed alone has
		// its label above it or to its left, and the one that names a kind
		// of date decides (the left neighbour may be another column).
		label := strings.ToUpper(line.Text[:dates[0].pos])
		if strings.TrimSpace(label) == "" {
			var near []string
			if j := above(lines, i); j >= 0 {
				near = append(near, strings.ToUpper(lines[j].Text))
			}
			if j := leftOf(lines, i); j >= 0 {
				near = append(near, strings.ToUpper(lines[j].Text))
			}
			for _, n := range near {
				if containsAny(n, otherLabels) || containsAny(n, periodLabels) || containsAny(n, issueLabels) {
					label = n
					break
				}
			}
		}
		up := strings.ToUpper(line.Text)
		switch {
		case containsAny(label, otherLabels):
			continue
		case containsAny(label, periodLabels) || containsAny(up, periodLabels):
			consider(cand{dates[len(dates)-1].t, 2, "statement period end"})
		case containsAny(label, issueLabels):
			consider(cand{dates[0].t, 3, "labelled " + strings.TrimSpace(strings.Trim(strings.TrimSpace(label), ":"))})
		default:
			for _, d := range dates {
				consider(cand{d.t, 1, "latest unlabelled date"})
			}
		}
	}
	if best == nil {
		return time.Time{}, "", false
	}
	return best.t, best.src, true
}

func containsAny(s string, subs []string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}
