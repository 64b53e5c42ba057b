package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tambua/tambua/internal/bench/addressbench"
	"github.com/tambua/tambua/internal/testkit/bills"
)

func init() {
	Register(&Command{
		Path:    "synth address",
		Summary: "render synthetic proofs of address (bills, statements, refused kinds) as photos and PDFs with ground truth",
		Run:     runSynthAddress,
	})
}

// addressTruth is what a rendered proof of address says, written next to
// it in truth.json: what address_verification should conclude.
type addressTruth struct {
	File        string   `json:"file"`
	ID          string   `json:"id"`
	Family      string   `json:"family"`
	Format      string   `json:"format"`
	Kind        string   `json:"document_kind"`
	Issuer      string   `json:"issuer"`
	HolderOnID  string   `json:"holder_on_id"`
	PrintedName string   `json:"holder_name"`
	Address     []string `json:"address_lines"`
	IssueDate   string   `json:"issue_date"`
	Scenario    string   `json:"scenario"`
	Decision    string   `json:"decision"`
	Reason      string   `json:"reason,omitempty"`
	CheckedOn   string   `json:"checked_on"`
}

func runSynthAddress(ctx context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "synth address")
	out := fs.String("out", "", "write the documents and truth.json to this folder (required)")
	n := fs.Int("n", 8, "documents per layout family")
	seed := fs.Uint64("seed", 1, "seed; the same seed gives the same documents")
	families := fs.String("families", strings.Join(append(append([]string{}, bills.TuningFamilies...), bills.HeldOut), ","),
		"layout families, comma separated ("+bills.HeldOut+" is held out from tuning)")
	if err := Parse(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return Usagef("--out is required")
	}
	if *n < 1 {
		return Usagef("--n must be positive")
	}
	fams := splitList(*families)
	for _, f := range fams {
		if f != bills.HeldOut && !slices.Contains(bills.TuningFamilies, f) {
			return Usagef("unknown family %q (%s, %s)", f, strings.Join(bills.TuningFamilies, ", "), bills.HeldOut)
		}
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	// The documents' dates are set against the bench's verification date,
	// so that the truth's decisions hold when they are checked as of it.
	now := addressbench.Now
	var truth []addressTruth
	for _, fam := range fams {
		for _, c := range bills.Generate(fam, *n, *seed, now) {
			if err := ctx.Err(); err != nil {
				return err
			}
			data, err := c.Bytes(*seed)
			if err != nil {
				return fmt.Errorf("%s: %w", c.ID, err)
			}
			ext := ".jpg"
			if strings.HasPrefix(c.Format, "pdf") {
				ext = ".pdf"
			}
			name := c.ID + "_" + c.Format + ext
			if err := os.WriteFile(filepath.Join(*out, name), data, 0o644); err != nil {
				return err
			}
			truth = append(truth, addressTruth{File: name, ID: c.ID, Family: c.Family, Format: c.Format, Kind: c.Kind,
				Issuer: c.Issuer, HolderOnID: c.HolderOnID, PrintedName: c.PrintedName, Address: c.Address,
				IssueDate: c.IssueDate.Format(time.DateOnly), Scenario: c.Scenario, Decision: c.Decision, Reason: c.Reason,
				CheckedOn: now.Format(time.DateOnly)})
		}
	}
	b, err := json.MarshalIndent(truth, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(*out, "truth.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "wrote %d documents and truth.json to %s\n", len(truth), *out)
	return nil
}
