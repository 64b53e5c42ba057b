package main

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/tambua/tambua/internal/testkit/fixtures"
)

// TestEmbedReadsAPassport runs the example on a real specimen, a passport
// data page, whose MRZ the engine must read with every check digit right.
func TestEmbedReadsAPassport(t *testing.T) {
	page := fixtures.Path(t, "ids", "passeye_passport-td3.jpg")
	var out bytes.Buffer
	if err := run(context.Background(), []string{"--config", "generic_passport", "--front", page}, &out); err != nil {
		t.Fatal(err)
	}
	var res struct {
		Decision string `json:"verification_decision"`
		MRZ      struct {
			AllChecksPass bool `json:"all_checks_pass"`
		} `json:"mrz_parsed"`
		Combined map[string]string `json:"combined"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if res.Decision == "" || !res.MRZ.AllChecksPass || res.Combined["passport_number"] == "" {
		t.Fatalf("decision %q, MRZ checks pass %v, passport number %q:\n%s",
			res.Decision, res.MRZ.AllChecksPass, res.Combined["passport_number"], out.String())
	}
	t.Logf("decision %s, combined %v", res.Decision, res.Combined)
}

func TestEmbedRefusesBadInput(t *testing.T) {
	for name, args := range map[string][]string{
		"no front":       {"--config", "generic_passport"},
		"unknown check":  {"--front", "main.go", "--checks", "ocr_extraction,no_such_check"},
		"missing file":   {"--front", "does-not-exist.jpg"},
		"unknown config": {"--config", "nowhere_card", "--front", "main.go"},
	} {
		t.Run(name, func(t *testing.T) {
			if err := run(context.Background(), args, &bytes.Buffer{}); err == nil {
				t.Fatal("no error")
			}
		})
	}
}
