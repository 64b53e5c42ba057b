package address

import (
	"reflect"
	"testing"
)

func TestParseParts(t *testing.T) {
	for _, tc := range []struct {
		lines []string
		want  Parts
	}{
		{[]string{"House No. 14", "Ngong Road", "Kilimani Estate", "Nairobi 00100", "Kenya"},
			Parts{HouseOrPlot: "HOUSE NO. 14", Street: "NGONG ROAD", Area: "KILIMANI ESTATE", PostalCode: "00100", Town: "NAIROBI", Country: "KENYA"}},
		{[]string{"P.O. Box 30099 - 00100", "Nairobi"}, Parts{POBox: "30099", PostalCode: "00100", Town: "NAIROBI"}},
		{[]string{"Plot 22, Kampala Road", "Kampala, Uganda"}, Parts{HouseOrPlot: "PLOT 22", Street: "KAMPALA ROAD", Town: "KAMPALA", Country: "UGANDA"}},
		{[]string{"12 Acacia Avenue", "Mombasa"}, Parts{Street: "12 ACACIA AVENUE", Town: "MOMBASA"}},
	} {
		got := parseParts(tc.lines)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parseParts(%q)\n got %+v\nwant %+v", tc.lines, got, tc.want)
		}
	}
	for _, box := range []string{"P.O, BOX 82491 - 63700", "P O BOX 7", "PO Box 12", "p.o.box 9"} {
		if !parseParts([]string{box, "Nairobi"}).POBoxOnly() {
			t.Errorf("%q is a box", box)
		}
	}
	if !parseParts([]string{"P.O. Box 30099 - 00100", "Nairobi"}).POBoxOnly() {
		t.Error("a box and a town is a box only")
	}
	if parseParts([]string{"House 4, Ngong Road", "P.O. Box 1"}).POBoxOnly() {
		t.Error("a street address with a box is not a box only")
	}
}

func TestHolder(t *testing.T) {
	holderNames := []string{"JOHN KAMAU MWANGI"}
	for name, tc := range map[string]struct {
		lines      []string
		name       string
		firstLine  string
		addrLength int
	}{
		"labels on one line": {[]string{"NAIROBI WATER", "Customer Name: JOHN K MWANGI", "Account No: 1234",
			"Service Address: House 14, Ngong Road", "Kilimani, Nairobi", "Bill Date: 01/03/2026"}, "JOHN K MWANGI", "House 14, Ngong Road", 2},
		"labels above values": {[]string{"ACCOUNT NAME", "Mwangi John", "ADDRESS", "P.O. Box 100-00200", "Nairobi", "Amount due 1,200.00"},
			"Mwangi John", "P.O. Box 100-00200", 2},
		"addressee block": {[]string{"KENYA POWER", "Electricity bill", "MR JOHN KAMAU MWANGI", "12 Acacia Avenue", "Mombasa",
			"Total 3,400.50"}, "MR JOHN KAMAU MWANGI", "12 Acacia Avenue", 2},
		"someone else's block": {[]string{"KENYA POWER", "MRS MARY WANJIRU", "Plot 7, Moi Avenue", "Nakuru"},
			"MRS MARY WANJIRU", "Plot 7, Moi Avenue", 2},
	} {
		n, addr := holder(column(tc.lines...), holderNames)
		if n != tc.name || len(addr) != tc.addrLength || len(addr) > 0 && addr[0] != tc.firstLine {
			t.Errorf("%s: holder = %q %q", name, n, addr)
		}
	}
}

func TestHolderTwoColumns(t *testing.T) {
	lines := grid(
		[]string{"NAIROBI CITY WATER", ""},
		[]string{"MR JOHN KAMAU MWANGI", "Account No: 5521"},
		[]string{"House 14, Ngong Road", "Bill Date: 01/03/2026"},
		[]string{"Kilimani, Nairobi", "Due Date: 20/03/2026"},
		[]string{"Customer Name", "Peter Otieno"},
	)
	// The labelled name wins over the addressee block: labels are the
	// document's own statement of whose bill it is.
	n, _ := holder(lines, []string{"JOHN KAMAU MWANGI"})
	if n != "Peter Otieno" {
		t.Errorf("labelled name: %q", n)
	}
	n, addr := holder(lines[:len(lines)-2], []string{"JOHN KAMAU MWANGI"})
	if n != "MR JOHN KAMAU MWANGI" || len(addr) != 2 || addr[1] != "Kilimani, Nairobi" {
		t.Errorf("addressee block beside a summary: %q %q", n, addr)
	}
}

func TestAddressAgreement(t *testing.T) {
	lines := []string{"HOUSE NO. 14, NGONG ROAD", "KILIMANI ESTATE", "NAIROBI 00100"}
	for declared, want := range map[string]float64{
		"House 14, Ngong Road, Kilimani, Nairobi": 1,
		"14 Moi Avenue, Mombasa":                  0.25,
		"":                                        0,
	} {
		if got := addressAgreement(declared, lines); got != want {
			t.Errorf("addressAgreement(%q) = %.2f, want %.2f", declared, got, want)
		}
	}
}

func TestSplitGlued(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"HOUSE NO. 347, KENYATTAAVENUE", "HOUSE NO. 347, KENYATTA AVENUE"},
		{"Plot 296, AcaciaAvenue", "Plot 296, Acacia Avenue"},
		{"UMOJAESTATE", "UMOJA ESTATE"},
		{"12 NGONGROAD", "12 NGONG ROAD"},
		{"KENYATTA AVENUE", "KENYATTA AVENUE"}, // nothing glued
		{"BROADWAY", "BROADWAY"},               // WAY is not split off
		{"AVENUE", "AVENUE"},                   // the type alone
		{"ABROAD", "ABROAD"},                   // under three letters before ROAD
		{"P.O. BOX 123-00100", "P.O. BOX 123-00100"},
	} {
		if got := splitGlued(tc.in); got != tc.want {
			t.Errorf("splitGlued(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
