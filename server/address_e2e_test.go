package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/checks/address"
	"github.com/tambua/tambua/checks/ocr"
	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/testkit/bills"
	"github.com/tambua/tambua/internal/testkit/fixtures"
	"github.com/tambua/tambua/internal/testkit/synth"
)

// addressSectionKeys are the keys of the address_verification section as
// docs/address.md ("The result section") lists them.
var addressSectionKeys = []string{"status", "decision", "document_kind", "kind_evidence", "issuer", "holder_name",
	"name_match", "address", "issue_date", "date_source", "age_days", "max_age_days", "source", "slot", "reasons"}

// TestAddressVerificationEndToEnd posts a synthetic Kenyan ID card and a
// phone photo of a bill through the server to a workflow running the
// real ocr_extraction (tesseract) and address_verification checks: a bill
// addressed to the card's holder matches, one addressed to another person
// fails on the name, and a request without a proof of address goes to
// review with address_document_missing.
func TestAddressVerificationEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end with tesseract: not in -short")
	}
	if raceEnabled {
		t.Skip("the real checks take minutes under the race detector; scripts/test.sh runs this without it")
	}
	fixtures.Need(t, synth.DefaultFacesDir, "dlib example faces (libdlib-data)")
	ctx := context.Background()

	// The card: sample 0 of kenya_national_id, easy, as the console's
	// end-to-end tests render it.
	def, ok := docdefs.Default().Definition("kenya_national_id")
	require.True(t, ok)
	gen, err := synth.New(synth.Options{Definitions: []*idv.DocumentDefinition{def}, Seed: 19, Difficulty: synth.Easy, ImpostorRate: -1})
	require.NoError(t, err)
	card, err := gen.Sample(ctx, 0)
	require.NoError(t, err)
	holder := card.Truth.Combined["full_name"]
	require.NotEmpty(t, holder)

	// The bills: the first (genuine) case of the classic family, dated
	// against today as the server's clock is, photographed. The same page
	// is addressed once to the card's holder (title and title case, as
	// bills print names) and once left to the generator's own addressee,
	// who shares no name with the holder.
	now := time.Now().UTC().Truncate(24 * time.Hour)
	drawn := bills.Generate("classic", 1, 7, now)[0]
	require.Equal(t, "genuine", drawn.Scenario)
	drawn.Format = "photo"
	for _, w := range strings.Fields(drawn.PrintedName) {
		require.NotContains(t, strings.Fields(holder), strings.ToUpper(w), "the other addressee must not share a name with the holder")
	}
	titled := strings.Fields(strings.ToLower(holder))
	for i, w := range titled {
		titled[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	mine, err := drawn.Addressed(holder, "Mr "+strings.Join(titled, " ")).Bytes(7)
	require.NoError(t, err)
	theirs, err := drawn.Bytes(7)
	require.NoError(t, err)
	// The same bill as its issuer's PDF download, read from its text layer.
	asPDF := drawn.Addressed(holder, "Mr "+strings.Join(titled, " "))
	asPDF.Format = "pdf_text"
	minePDF, err := asPDF.Bytes(7)
	require.NoError(t, err)

	e := newEnvWith(t, nil, ocr.New(), address.New(address.DefaultLimits))
	wf := e.createWorkflow("ID and proof of address", idv.CheckOCR, idv.CheckAddress)
	tok := e.token()
	post := func(t *testing.T, requestID string, extra ...part) (response, map[string]any) {
		t.Helper()
		parts := append([]part{{"front", card.Front}, {"back", card.Back}}, extra...)
		r := e.upload(tok, e.uploadMessage(wf, map[string]any{"request_id": requestID}), parts...)
		require.Equal(t, 200, r.status, string(r.body))
		sec, ok := r.obj["address_verification"].(map[string]any)
		require.True(t, ok, "no address_verification section: %s", r.body)
		for _, k := range addressSectionKeys {
			assert.Contains(t, sec, k)
		}
		// The stored result is the one returned.
		v, err := e.db.Verification(ctx, e.client.ID, requestID)
		require.NoError(t, err)
		var stored map[string]any
		require.NoError(t, json.Unmarshal(v.Result, &stored))
		assert.Equal(t, sec, stored["address_verification"])
		return r, sec
	}

	t.Run("holder's bill matches", func(t *testing.T) {
		r, sec := post(t, "poa-mine", part{"proof_of_address", mine})
		assert.Equal(t, holder, r.obj["combined"].(map[string]any)["full_name"], "OCR read the card's name")
		assert.Equal(t, "match", sec["decision"], "%v", sec)
		assert.Equal(t, "passed", sec["status"])
		assert.Equal(t, []any{}, sec["reasons"])
		assert.Equal(t, drawn.Kind, sec["document_kind"])
		assert.Equal(t, drawn.Issuer, sec["issuer"])
		assert.Equal(t, "photo", sec["source"])
		assert.Equal(t, "proof_of_address", sec["slot"])
		assert.Equal(t, "Mr "+strings.Join(titled, " "), sec["holder_name"])
		lines := []any{}
		for _, l := range drawn.Address {
			lines = append(lines, l)
		}
		assert.Equal(t, lines, sec["address"].(map[string]any)["lines"])
		assert.Equal(t, drawn.IssueDate.Format(time.DateOnly), sec["issue_date"])
		// Within a day: the server's clock may pass midnight after the check.
		assert.InDelta(t, time.Since(drawn.IssueDate).Hours()/24, sec["age_days"], 1)
		assert.NotEmpty(t, sec["kind_evidence"])
		assert.EqualValues(t, 90, sec["max_age_days"])
		assert.Equal(t, true, sec["name_match"].(map[string]any)["match"])
		assert.Equal(t, "accept", r.str("verification_decision"))
		assert.Equal(t, []any{}, r.obj["decision_reasons"])
		assert.NotEmpty(t, r.str("proof_of_address_url"))
	})

	t.Run("holder's PDF statement matches", func(t *testing.T) {
		r, sec := post(t, "poa-pdf", part{"proof_of_address", minePDF})
		assert.Equal(t, "match", sec["decision"], "%v", sec)
		assert.Equal(t, "pdf_text", sec["source"])
		assert.Equal(t, drawn.IssueDate.Format(time.DateOnly), sec["issue_date"])
		assert.Equal(t, "accept", r.str("verification_decision"))
		got := e.get(r.str("proof_of_address_url"))
		assert.Equal(t, minePDF, got.body)
		assert.Equal(t, "application/pdf", got.header.Get("Content-Type"))
	})

	t.Run("another person's bill does not match", func(t *testing.T) {
		r, sec := post(t, "poa-theirs", part{"proof_of_address", theirs})
		assert.Equal(t, "no_match", sec["decision"], "%v", sec)
		assert.Equal(t, "failed", sec["status"])
		assert.Equal(t, []any{address.ReasonNameMismatch}, sec["reasons"])
		assert.Equal(t, false, sec["name_match"].(map[string]any)["match"])
		assert.Equal(t, "reject", r.str("verification_decision"))
		assert.Contains(t, r.obj["decision_reasons"], address.ReasonNameMismatch)
	})

	t.Run("no proof of address goes to review", func(t *testing.T) {
		r, sec := post(t, "poa-none")
		assert.Equal(t, "review", sec["decision"], "%v", sec)
		assert.Equal(t, "review", sec["status"])
		assert.Equal(t, []any{address.ReasonMissing}, sec["reasons"])
		assert.Equal(t, "no proof-of-address part in the request", sec["error"])
		assert.Equal(t, "review", r.str("verification_decision"))
		assert.Contains(t, r.obj["decision_reasons"], address.ReasonMissing)
	})
}
