package mrz

import (
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary text to the parser, with and without repair:
// it must never panic, and what it returns must be self-consistent.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		utoL1 + "\n" + utoL2,
		"I<UTOD23145890<1240<XYZ<<<<<<<\n7408122F1204159UTO<<<<<<<<<<<8\nERIKSSON<<ANNA<MARIA<<<<<<<<<<",
		"I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<\nD231458907UTO7408122F1204159<<<<<<<6",
		"V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<\nL8988901C4XXX4009078F9612109<<<<<<<<",
		"IDD<<MUSTERMANN<<ERIKA<<<<<<<<<<<<<<\n1220001518D<<6408125<1110078<<<<<<<0",
		"P<GBRUK<SPECIMEN<<ANGELA<ZOE<<<<<<<<<<<<<<<<\n9250764733GBR88O9117F2007162<<<<<<<<<<<<<<08",
		"IDD<<KKKKKKKKKKKKKKKKKKKKKKKKKKKKKKK\n<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<",
		"", "\n\n", "P<",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, rep := range []bool{false, true} {
			m, err := ParseText(text, Options{Now: refNow, Repair: rep})
			if err != nil {
				continue
			}
			n, w, ok := Shape(m.Format)
			if !ok || len(m.Lines) != n {
				t.Fatalf("format %s with %d lines", m.Format, len(m.Lines))
			}
			all := true
			for _, l := range m.Lines {
				if len(l) != w || strings.Trim(l, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<") != "" {
					t.Fatalf("bad line %q", l)
				}
			}
			for _, v := range m.Checks.Map() {
				all = all && v
			}
			if all != m.AllChecksPass {
				t.Fatalf("all_checks_pass %v but checks %v", m.AllChecksPass, m.Checks.Map())
			}
			if !rep && len(m.Repaired) > 0 {
				t.Fatalf("repaired without Repair")
			}
			if m.DateOfBirth != "" && !strings.HasSuffix(m.DateOfBirth, m.DateOfBirthRaw[4:]) {
				t.Fatalf("birth %s from %s", m.DateOfBirth, m.DateOfBirthRaw)
			}
		}
	})
}
