package mrz_test

import (
	"fmt"
	"time"

	"github.com/tambua/tambua/mrz"
)

func ExampleParseText() {
	m, err := mrz.ParseText(`P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<
L898902C36UTO74O8122F1204159ZE184226B<<<<<10`, mrz.Options{Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Repair: true})
	if err != nil {
		panic(err)
	}
	fmt.Println(m.Format, m.DocumentNumber, m.DateOfBirth, m.Surname+",", m.GivenNames)
	fmt.Println("checks pass:", m.AllChecksPass, "failing:", m.Checks.Failing())
	for _, r := range m.Repaired {
		fmt.Println("repaired", r)
	}
	// Output:
	// TD3 L898902C3 1974-08-12 ERIKSSON, ANNA MARIA
	// checks pass: true failing: []
	// repaired line 2 position 16: O->0 (date_of_birth)
}
