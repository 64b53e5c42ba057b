package synth

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/tambua/tambua/docdefs"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestTruthGolden pins the truth of a few samples (a card with an MRZ, a
// passport, attacks) so that a change to what the corpus contains shows up
// in review. Run with -update after an intended change.
func TestTruthGolden(t *testing.T) {
	gen := newTestGenerator(t, Options{Definitions: docdefs.Default().Drawn(), Seed: 42, Difficulty: Medium, Attacks: true})
	var truths []Truth
	for _, i := range []int{3, 4, 7, 17} {
		s, err := gen.Sample(context.Background(), i)
		if err != nil {
			t.Fatal(err)
		}
		truths = append(truths, s.Truth)
	}
	got, err := json.MarshalIndent(truths, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "truth.golden.json")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run TruthGolden -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("truth differs from %s; if intended, run go test -run TruthGolden -update\n%s", path, firstDiff(got, want))
	}
}

func firstDiff(a, b []byte) string {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := 0; i < len(la) && i < len(lb); i++ {
		if !bytes.Equal(la[i], lb[i]) {
			return "line " + itoa(i+1) + ":\n got " + string(la[i]) + "\nwant " + string(lb[i])
		}
	}
	return "lengths differ"
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}
