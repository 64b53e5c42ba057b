package mrz

import (
	"reflect"
	"strings"
	"testing"
)

const (
	utoL1 = "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<"
	utoL2 = "L898902C36UTO7408122F1204159ZE184226B<<<<<10"
)

// set returns s with the byte at 1-based position pos replaced.
func set(s string, pos int, c byte) string {
	b := []byte(s)
	b[pos-1] = c
	return string(b)
}

func TestRepair(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		want  []Repair
		pass  bool
	}{
		{
			name:  "O for 0 in a date (gbr vector)",
			lines: []string{"P<GBRUK<SPECIMEN<<ANGELA<ZOE<<<<<<<<<<<<<<<<", "9250764733GBR88O9117F2007162<<<<<<<<<<<<<<08"},
			want:  []Repair{{Line: 2, Position: 16, From: "O", To: "0", Field: "date_of_birth"}},
			pass:  true,
		},
		{
			name:  "O for 0 in the document number",
			lines: []string{utoL1, set(utoL2, 6, 'O')},
			want:  []Repair{{Line: 2, Position: 6, From: "O", To: "0", Field: "document_number"}},
			pass:  true,
		},
		{
			name:  "G for 6 in a check digit",
			lines: []string{utoL1, set(utoL2, 10, 'G')},
			want:  []Repair{{Line: 2, Position: 10, From: "G", To: "6", Field: "document_number_check"}},
			pass:  true,
		},
		{
			name:  "S and B in the expiry",
			lines: []string{utoL1, set(set(utoL2, 27, 'S'), 22, 'I')},
			want: []Repair{
				{Line: 2, Position: 22, From: "I", To: "1", Field: "date_of_expiry"},
				{Line: 2, Position: 27, From: "S", To: "5", Field: "date_of_expiry"},
			},
			pass: true,
		},
		{
			name:  "K read for the filler in the personal number",
			lines: []string{utoL1, set(utoL2, 40, 'K')},
			want:  []Repair{{Line: 2, Position: 40, From: "K", To: "<", Field: "optional_data"}},
			pass:  true,
		},
		{
			name:  "X read for a filler at the end of the name",
			lines: []string{set(utoL1, 35, 'X'), utoL2},
			want:  []Repair{{Line: 1, Position: 35, From: "X", To: "<", Field: "name"}},
			pass:  true,
		},
		{
			name:  "a one-letter given name stays",
			lines: []string{"P<UTOERIKSSON<<K<<<<<<<<<<<<<<<<<<<<<<<<<<<<", utoL2},
			want:  nil,
			pass:  true,
		},
		{
			name:  "digit in a name",
			lines: []string{set(utoL1, 11, '0'), utoL2},
			want:  []Repair{{Line: 1, Position: 11, From: "0", To: "O", Field: "name"}},
			pass:  true,
		},
		{
			name: "TD1 Z for 2 in the birth date and composite",
			lines: []string{"I<UTOD231458907<<<<<<<<<<<<<<<", "74O8122F1204159UTO<<<<<<<<<<<6",
				"ERIKSSON<<ANNA<MARIA<<<<<<<<<<"},
			want: []Repair{{Line: 2, Position: 3, From: "O", To: "0", Field: "date_of_birth"}},
			pass: true,
		},
		{
			name:  "a wrong digit is not a confusion",
			lines: []string{utoL1, set(utoL2, 15, '3')},
			want:  nil,
			pass:  false,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Parse(tc.lines, Options{Now: refNow, Repair: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Repaired) == 0 {
				m.Repaired = nil
			}
			if !reflect.DeepEqual(m.Repaired, tc.want) {
				t.Errorf("repaired = %v, want %v", m.Repaired, tc.want)
			}
			if m.AllChecksPass != tc.pass {
				t.Errorf("all_checks_pass = %v (%v), want %v", m.AllChecksPass, m.Checks.Map(), tc.pass)
			}
			if tc.want != nil && strings.Join(m.Lines, "") == strings.Join(tc.lines, "") {
				t.Errorf("lines unchanged")
			}
		})
	}
}

// TestRepairAmbiguous: when two different readings both pass, neither is
// evidence, so nothing is changed.
func TestRepairAmbiguous(t *testing.T) {
	buf := [][]byte{[]byte("ABC")}
	cands := []candidate{{0, 0, []byte{'X'}}, {0, 1, []byte{'Y'}}}
	calls := 0
	_, ok := smallestFix(buf, cands, func() bool { calls++; return true })
	if ok {
		t.Fatal("ambiguous fix accepted")
	}
	if string(buf[0]) != "ABC" {
		t.Fatalf("buf changed to %s", buf[0])
	}
}
