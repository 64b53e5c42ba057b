// Package bills renders synthetic proofs of address (utility bills, bank
// statements and documents that must be refused) with the truth of each,
// for the address_verification check's tests and benchmark. Layout
// families vary where the addressee block, the labels and the dates are;
// the family "heldout" combines choices no other family uses and is never
// used for tuning.
package bills

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// Families of layouts. Tuning uses the first three; heldout is the figure
// that counts.
var (
	TuningFamilies = []string{"classic", "statement", "compact"}
	HeldOut        = "heldout"
)

// Case is one document with what the check must conclude.
type Case struct {
	ID     string
	Family string
	// Kind is the document kind as the check names it.
	Kind   string
	Issuer string
	// HolderOnID is the name on the holder's ID card.
	HolderOnID string
	// PrintedName is the addressee as printed on the document.
	PrintedName string
	Address     []string
	IssueDate   time.Time
	// Decision is match, review or no_match; Reason the expected reason
	// (empty for match).
	Decision, Reason string
	// Scenario names what the case tests.
	Scenario string
	// Format is photo, pdf_text or pdf_scan.
	Format string
	doc    document
}

var (
	firstNames = []string{"JOHN", "MARY", "KEVIN", "GRACE", "PETER", "AMINA", "JOSEPH", "FAITH", "DAVID", "ESTHER",
		"BRIAN", "MERCY", "SAMUEL", "JANE", "MOSES", "LILIAN", "PAUL", "ANN", "GEORGE", "RUTH"}
	otherNames = []string{"KAMAU", "WANJIRU", "OTIENO", "ACHIENG", "MWANGI", "NJERI", "KIPROP", "CHEBET", "ODHIAMBO",
		"MUTUA", "WAMBUI", "OCHIENG", "NYAMBURA", "KARIUKI", "ATIENO", "KIMANI", "MUTHONI", "OMONDI", "NAFULA", "BARASA"}
	streets = []string{"NGONG ROAD", "MOI AVENUE", "KENYATTA AVENUE", "THIKA ROAD", "JOGOO ROAD", "WAIYAKI WAY",
		"LANGATA ROAD", "ACACIA AVENUE", "MAMA NGINA STREET", "RIVERSIDE DRIVE"}
	areas = []string{"KILIMANI ESTATE", "SOUTH B ESTATE", "BURUBURU ESTATE", "KAREN", "WESTLANDS", "UMOJA ESTATE",
		"LAVINGTON", "KILELESHWA", "PARKLANDS", "NYALI"}
	towns = []string{"NAIROBI", "MOMBASA", "KISUMU", "NAKURU", "ELDORET", "THIKA", "NYERI", "MACHAKOS"}
)

type issuerDef struct {
	kind, name, title string
	extra             []string // lines that give the kind away
}

var issuers = []issuerDef{
	{"electricity_bill", "KENYA POWER AND LIGHTING COMPANY PLC", "ELECTRICITY BILL", []string{"Energy charge 245 kWh", "Fuel energy cost"}},
	{"electricity_bill", "RIFT VALLEY POWER LTD", "ELECTRICITY BILL", []string{"Consumption 180 kWh", "Meter No: 54-22891"}},
	{"water_bill", "NAIROBI CITY WATER AND SEWERAGE COMPANY", "WATER BILL", []string{"Water consumption 14 m3", "Sewerage charge"}},
	{"water_bill", "MOMBASA WATER SUPPLY LTD", "WATER AND SANITATION BILL", []string{"Water used 9 cubic metres", "Sanitation levy"}},
	{"landline_or_internet_bill", "TELKOM FIBRE LIMITED", "HOME INTERNET BILL", []string{"Fibre broadband 40 Mbps", "Line rental"}},
	{"bank_statement", "EQUATOR BANK PLC", "BANK STATEMENT", []string{"Opening balance 12,400.00", "Closing balance 9,850.50"}},
	{"bank_statement", "HARAMBEE SAVINGS BANK LTD", "ACCOUNT STATEMENT", []string{"Opening balance 3,200.00", "Withdrawal 1,000.00"}},
}

var refusedIssuers = []issuerDef{
	{"mobile_phone_statement", "SAFARI MOBILE LTD", "MOBILE STATEMENT", []string{"Airtime purchases 500.00", "Data bundle 1GB"}},
	{"receipt", "TUSKYS SUPERMARKET", "CASH RECEIPT", []string{"Cashier: 04  Till 7", "Change due 150.00"}},
}

// Generate draws n cases of a family, deterministic from seed. now is
// the verification date the expected decisions are computed against.
func Generate(family string, n int, seed uint64, now time.Time) []Case {
	r := rand.New(rand.NewPCG(seed, hash(family)))
	scenarios := []string{"genuine", "genuine", "name_variant", "other_person", "too_old", "future_date", "refused_kind", "po_box_only"}
	formats := []string{"photo", "photo", "photo", "pdf_text", "pdf_scan"}
	var out []Case
	for i := 0; i < n; i++ {
		sc := scenarios[i%len(scenarios)]
		first, other := pick(r, firstNames), pick(r, otherNames)
		middle := pick(r, otherNames)
		for middle == other {
			middle = pick(r, otherNames)
		}
		onID := first + " " + middle + " " + other
		is := issuers[r.IntN(len(issuers))]
		c := Case{ID: fmt.Sprintf("%s-%03d", family, i), Family: family, Scenario: sc, HolderOnID: onID,
			Format: formats[r.IntN(len(formats))], Decision: "match"}
		c.PrintedName = printedName(r, first, middle, other, false)
		c.IssueDate = now.AddDate(0, 0, -(3 + r.IntN(60)))
		c.Address = streetAddress(r)
		switch sc {
		case "name_variant":
			c.PrintedName = printedName(r, first, middle, other, true)
		case "other_person":
			f2, o2 := pick(r, firstNames), pick(r, otherNames)
			for f2 == first {
				f2 = pick(r, firstNames)
			}
			for o2 == other || o2 == middle {
				o2 = pick(r, otherNames)
			}
			c.PrintedName = printedName(r, f2, "", o2, false)
			c.Decision, c.Reason = "no_match", "address_name_mismatch"
		case "too_old":
			c.IssueDate = now.AddDate(0, 0, -(120 + r.IntN(300)))
			c.Decision, c.Reason = "no_match", "address_document_too_old"
		case "future_date":
			c.IssueDate = now.AddDate(0, 0, 10+r.IntN(60))
			c.Decision, c.Reason = "no_match", "address_document_date_invalid"
		case "refused_kind":
			is = refusedIssuers[r.IntN(len(refusedIssuers))]
			c.Decision, c.Reason = "no_match", "address_document_unsupported"
		case "po_box_only":
			c.Address = []string{fmt.Sprintf("P.O. BOX %d - %05d", 100+r.IntN(90000), 100*(1+r.IntN(900))), pick(r, towns)}
			c.Decision, c.Reason = "no_match", "address_po_box_only"
		}
		c.Kind, c.Issuer = is.kind, is.name
		c.doc = layout(r, family, c, is)
		out = append(out, c)
	}
	return out
}

// Addressed returns the case printed to another addressee: onID is the
// name on the holder's ID card and printed the name the document shows in
// place of the drawn one (the heldout family prints it in capitals, as it
// did the drawn one). Layout, issuer, address and dates stay; Decision and
// Reason are the drawn scenario's, for the caller to restate.
// End-to-end tests use it to address a bill to the holder of a card
// rendered by the synth package.
func (c Case) Addressed(onID, printed string) Case {
	out := c
	out.HolderOnID, out.PrintedName = onID, printed
	out.doc.items = slices.Clone(c.doc.items)
	for i, it := range out.doc.items {
		switch it.text {
		case c.PrintedName:
			out.doc.items[i].text = printed
		case strings.ToUpper(c.PrintedName):
			out.doc.items[i].text = strings.ToUpper(printed)
		}
	}
	return out
}

func pick(r *rand.Rand, from []string) string { return from[r.IntN(len(from))] }

func hash(s string) uint64 {
	h := uint64(1469598103934665603)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	return h
}

// printedName writes the addressee as bills do: with or without a title,
// in ID order or surname first; variant reduces the middle name to an
// initial or drops it.
func printedName(r *rand.Rand, first, middle, other string, variant bool) string {
	parts := []string{first}
	if middle != "" {
		m := middle
		if variant {
			if r.IntN(2) == 0 {
				m = middle[:1] + "."
			} else {
				m = ""
			}
		}
		if m != "" {
			parts = append(parts, m)
		}
	}
	parts = append(parts, other)
	if variant && r.IntN(2) == 0 {
		parts = append([]string{other + ","}, parts[:len(parts)-1]...)
	}
	name := strings.Join(parts, " ")
	if r.IntN(2) == 0 {
		name = pick(r, []string{"MR", "MRS", "MS", "DR"}) + " " + name
	}
	if r.IntN(3) == 0 {
		name = titleCase(name)
	}
	return name
}

func titleCase(s string) string {
	words := strings.Fields(strings.ToLower(s))
	for i, w := range words {
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.Join(words, " ")
}

func streetAddress(r *rand.Rand) []string {
	house := fmt.Sprintf("%s %d", pick(r, []string{"HOUSE NO.", "PLOT", "APT", "HSE"}), 1+r.IntN(400))
	town := pick(r, towns)
	lines := []string{house + ", " + pick(r, streets), pick(r, areas), fmt.Sprintf("%s %05d", town, 100*(1+r.IntN(900)))}
	if r.IntN(2) == 0 {
		lines = append(lines, "KENYA")
	}
	return lines
}
