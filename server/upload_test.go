package server_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/testkit/bills"
	"github.com/tambua/tambua/server"
)

var hex32 = regexp.MustCompile(`^[0-9a-f]{32}$`)

func TestUploadSuccess(t *testing.T) {
	e := newEnv(t)
	front, back := captures(t)
	tok := e.token()
	msg := e.uploadMessage(e.wfOCR, map[string]any{"request_id": "req-1", "customer_ref": map[string]any{"n": 7}})
	r := e.upload(tok, msg, part{"front", front}, part{"back", back})
	require.Equal(t, 200, r.status, string(r.body))

	assert.Regexp(t, hex32, r.str("idv_unique_id"))
	assert.Equal(t, "success", r.str("status"))
	assert.Equal(t, "accept", r.str("verification_decision"))
	assert.Equal(t, "req-1", r.str("request_id"))
	assert.Equal(t, e.client.ID, r.str("client_id"))
	assert.Equal(t, e.wfOCR.ID, r.str("work_flow_id"))
	assert.Equal(t, "kenya_national_id", r.str("config"))
	assert.Equal(t, "Kenya", r.str("country"))
	assert.Equal(t, map[string]any{"n": 7.0}, r.obj["customer_ref"], "extra message keys are carried through")
	for _, envelope := range []string{"rpcQueue", "menu", "method", "no_adapter"} {
		assert.NotContains(t, r.obj, envelope, "the request envelope is not part of the result")
	}
	assert.Equal(t, []any{}, r.obj["decision_reasons"])
	combined := r.obj["combined"].(map[string]any)
	assert.Len(t, r.obj["field_schema"], 12)
	assert.Len(t, combined, 12)
	assert.Equal(t, "NATIONAL ID", combined["document_type"])
	assert.EqualValues(t, 2, r.obj["units_consumed"])

	// Originals and the derived image are stored and served at signed URLs.
	images := r.obj["images"].(map[string]any)
	for name, want := range map[string][]byte{"front_id": front, "back_id": back} {
		u, _ := images[name].(string)
		require.True(t, strings.HasPrefix(u, e.ts.URL+"/files/"), u)
		got := e.get(u)
		require.Equal(t, 200, got.status)
		assert.Equal(t, want, got.body)
		assert.Equal(t, "image/jpeg", got.header.Get("Content-Type"))
	}
	assert.Contains(t, images, "front_rectified")
	assert.Equal(t, images["front_id"], r.obj["front_url"], "the message gets <slot>_url")
	assert.Equal(t, images["back_id"], r.obj["back_url"])

	assert.EqualValues(t, 998, e.balance())
	ev := e.events()
	require.Len(t, ev["verification.started"], 1)
	require.Len(t, ev["verification.completed"], 1)
	var data map[string]any
	require.NoError(t, json.Unmarshal(ev["verification.completed"][0].Data, &data))
	assert.Equal(t, r.str("idv_unique_id"), data["verification_id"])
	assert.Equal(t, "OCR only", data["workflow_name"])
	assert.EqualValues(t, 2, data["units_consumed"])
	assert.Equal(t, e.org.ID, ev["verification.completed"][0].OrganisationID)
}

func TestUploadVerdictsFollowTheChecks(t *testing.T) {
	e := newEnv(t)
	front, back := captures(t)
	tok := e.token()
	other := jpegBytes(t, blocks(99, 480, 300))
	cases := []struct {
		name    string
		wf      server.Workflow
		parts   []part
		verdict string
		reason  string
		event   string
	}{
		{"same face", e.wfFace, []part{{"front", front}, {"back", back}, {"selfie", front}}, "accept", "", "verification.completed"},
		{"other face goes to review", e.wfFace, []part{{"front", front}, {"back", back}, {"selfie", other}}, "review", "face_low_confidence", "verification.review_required"},
		{"no selfie: face check could not run", e.wfFace, []part{{"front", front}, {"back", back}}, "review", "face_unavailable", "verification.review_required"},
		{"flat front is unreadable", e.wfOCR, []part{{"front", flatJPEG}, {"back", back}}, "reject", "document_unreadable", "verification.failed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := len(e.events()[tc.event])
			r := e.upload(tok, e.uploadMessage(tc.wf, nil), tc.parts...)
			require.Equal(t, 200, r.status, string(r.body))
			assert.Equal(t, tc.verdict, r.str("verification_decision"))
			if tc.reason != "" {
				assert.Contains(t, r.obj["decision_reasons"], tc.reason)
			}
			assert.Len(t, e.events()[tc.event], before+1)
		})
	}
}

// mintToken signs claims with an arbitrary key and method.
func mintToken(t *testing.T, method jwt.SigningMethod, key any, claims jwt.MapClaims) string {
	t.Helper()
	s, err := jwt.NewWithClaims(method, claims).SignedString(key)
	require.NoError(t, err)
	return s
}

func TestUploadErrors(t *testing.T) {
	small := server.DefaultLimits
	small.FileBytes = 200 << 10
	small.Pixels = 1_000_000
	e := newEnv(t, small)
	front, back := captures(t)
	tok := e.token()
	ok := []part{{"front", front}, {"back", back}}

	other, otherSecret, err := e.admin.CreateClient(context.Background(), e.org.ID, "other")
	require.NoError(t, err)
	otherTok := e.tokenFor(other.ID, otherSecret)
	archived := e.createWorkflow("Archived one", idv.CheckOCR)
	// A check this test binary does not link (address_verification is
	// linked now, for its end-to-end test).
	require.NotContains(t, idv.Registered(), idv.CheckAge)
	lacking := e.createWorkflow("Needs age", idv.CheckOCR, idv.CheckAge) // not in this engine
	_, err = e.admin.SetWorkflowStatus(context.Background(), archived.ID, idv.WorkflowArchived)
	require.NoError(t, err)
	poorOrg, _ := e.admin.CreateOrganisation(context.Background(), "Poor")
	poor, poorSecret, _ := e.admin.CreateClient(context.Background(), poorOrg.ID, "poor")
	poorWF, err := e.admin.CreateWorkflow(context.Background(), poor.ID, poorSecret, idv.Workflow{
		Name: "Poor wf", DocumentTypes: []string{"kenya_national_id"}, Checks: []idv.CheckSpec{{Name: idv.CheckOCR}}})
	require.NoError(t, err)
	poorTok := e.tokenFor(poor.ID, poorSecret)

	// Tokens that must all be refused.
	parts := strings.Split(tok, ".")
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	tampered := parts[0] + "." + base64.RawURLEncoding.EncodeToString(bytes.Replace(payload, []byte(`"org":1`), []byte(`"org":2`), 1)) + "." + parts[2]
	claims := jwt.MapClaims{"iss": "tambua", "sub": e.client.ID, "typ": "access", "org": e.org.ID, "iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix()}
	algNone := mintToken(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, claims)
	wrongKey := mintToken(t, jwt.SigningMethodHS256, []byte("0123456789abcdef0123456789abcdef"), claims)
	noExp := jwt.MapClaims{}
	for k, v := range claims {
		noExp[k] = v
	}
	delete(noExp, "exp")
	otherIssuer := jwt.MapClaims{}
	for k, v := range claims {
		otherIssuer[k] = v
	}
	otherIssuer["iss"] = "someone-else"
	// The server's own key accepts these claims: the refusals above are
	// about the token, not the claims.
	good := e.upload(mintToken(t, jwt.SigningMethodHS256, e.keys().Token, claims), e.uploadMessage(e.wfOCR, map[string]any{"no_adapter": true}), part{"front", front})
	require.Equal(t, 200, good.status, string(good.body))
	require.NoError(t, os.RemoveAll(filepath.Join(e.dir, "files")))

	pngHuge := pngBytes(t, flat(1200, 1000))                                // 1.2 MP > 1 MP
	bigJPEG := append(append([]byte{}, front...), make([]byte, 210<<10)...) // over 200 KiB
	msg := func(extra map[string]any) map[string]any { return e.uploadMessage(e.wfOCR, extra) }

	cases := []struct {
		name    string
		token   string
		auth    string // raw Authorization header, when set
		message any
		parts   []part
		status  int
		code    int
	}{
		{"no Authorization", "", "", msg(nil), ok, 401, 401},
		{"not Bearer", "", "Basic abc", msg(nil), ok, 401, 401},
		{"Bearer without token", "", "Bearer ", msg(nil), ok, 401, 401},
		{"garbage token", "", "Bearer abc.def.ghi", msg(nil), ok, 401, 401},
		{"tampered payload", tampered, "", msg(nil), ok, 401, 401},
		{"alg none", algNone, "", msg(nil), ok, 401, 401},
		{"signed with another key", wrongKey, "", msg(nil), ok, 401, 401},
		{"access token without exp", mintToken(t, jwt.SigningMethodHS256, e.keys().Token, noExp), "", msg(nil), ok, 401, 401},
		{"access token of another issuer", mintToken(t, jwt.SigningMethodHS256, e.keys().Token, otherIssuer), "", msg(nil), ok, 401, 401},
		{"HS384 with the right key", mintToken(t, jwt.SigningMethodHS384, e.keys().Token, claims), "", msg(nil), ok, 401, 401},
		{"refresh token used as access token", e.wfOCR.RefreshToken, "", msg(nil), ok, 401, 401},
		{"client_id of another client", otherTok, "", msg(nil), ok, 403, 403},
		{"unknown rpcQueue", tok, "", msg(map[string]any{"rpcQueue": "idv-gateway-v1"}), ok, 400, 101},
		{"missing rpcQueue", tok, "", msg(map[string]any{"rpcQueue": nil}), ok, 400, 102},
		{"missing menu", tok, "", msg(map[string]any{"menu": nil}), ok, 400, 102},
		{"missing method", tok, "", msg(map[string]any{"method": ""}), ok, 400, 102},
		{"missing message", tok, "", nil, ok, 400, 102},
		{"wrong menu", tok, "", msg(map[string]any{"menu": "flow"}), ok, 400, 103},
		{"message not JSON", tok, "", "{not json", ok, 400, 104},
		{"message a JSON array", tok, "", "[1,2]", ok, 400, 104},
		{"no_adapter missing", tok, "", msg(map[string]any{"no_adapter": nil}), ok, 400, 104},
		{"no_adapter not boolean", tok, "", msg(map[string]any{"no_adapter": "false"}), ok, 400, 104},
		{"client_id missing", tok, "", msg(map[string]any{"client_id": nil}), ok, 400, 104},
		{"no files", tok, "", msg(nil), nil, 400, 104},
		{"no back", tok, "", msg(nil), []part{{"front", front}, {"selfie", back}}, 400, 104},
		{"traversal slot name", tok, "", msg(nil), []part{{"front", front}, {"../x", back}}, 400, 104},
		{"slash in slot name", tok, "", msg(nil), []part{{"front", front}, {"back", back}, {"a/b", back}}, 400, 104},
		{"dot slot name", tok, "", msg(nil), []part{{"front", front}, {"back", back}, {".hidden", back}}, 400, 104},
		{"repeated slot", tok, "", msg(nil), []part{{"front", front}, {"back", back}, {"back", back}}, 400, 104},
		{"unknown workflow", tok, "", msg(map[string]any{"work_flow_id": idv.NewRequestID()}), ok, 404, 404},
		{"archived workflow", tok, "", e.uploadMessage(archived, nil), ok, 404, 404},
		{"unknown config", tok, "", msg(map[string]any{"config": "atlantis_id"}), ok, 422, 422},
		{"check missing from this build", tok, "", e.uploadMessage(lacking, nil), ok, 503, 503},
		{"config not in the workflow", tok, "", msg(map[string]any{"config": "uganda_driving_licence"}), ok, 422, 422},
		{"unreadable image", tok, "", msg(nil), []part{{"front", []byte("GIF89a not really")}, {"back", back}}, 415, 415},
		{"a PDF as the card", tok, "", msg(nil), []part{{"front", statementPDF()}, {"back", back}}, 415, 415},
		{"an encrypted PDF statement", tok, "", msg(nil), []part{{"front", front}, {"back", back}, {"proof_of_address", encryptedPDF()}}, 415, 415},
		{"a truncated PDF statement", tok, "", msg(nil), []part{{"front", front}, {"back", back}, {"proof_of_address", statementPDF()[:200]}}, 415, 415},
		{"file over the byte limit", tok, "", msg(nil), []part{{"front", bigJPEG}, {"back", back}}, 413, 413},
		{"image over the pixel limit", tok, "", msg(nil), []part{{"front", pngHuge}, {"back", back}}, 413, 413},
		{"insufficient units", poorTok, "", map[string]any{"rpcQueue": "idv-gateway-v2", "menu": "service-ai", "method": "init",
			"no_adapter": false, "client_id": poor.ID, "work_flow_id": poorWF.ID, "config": "kenya_national_id"}, ok, 402, 402},
	}
	balance := e.balance()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := e.uploadRequest(tc.token, tc.message, tc.parts...)
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			r := e.do(req)
			assert.Equal(t, tc.status, r.status, string(r.body))
			assert.Equal(t, tc.code, r.code(), string(r.body))
			assert.NotEmpty(t, r.str("v_field48"))
			if tc.status == 401 {
				assert.NotEmpty(t, r.header.Get("WWW-Authenticate"))
			}
		})
	}
	assert.Equal(t, balance, e.balance(), "nothing was billed")
	assert.Zero(t, e.storedFiles(), "nothing was stored")
	assert.Zero(t, e.ocr.runs.Load(), "no check ran")

	t.Run("expired token", func(t *testing.T) {
		e.clock.Store(int64(2 * time.Hour))
		defer e.clock.Store(0)
		r := e.upload(tok, msg(nil), ok...)
		assert.Equal(t, 401, r.status)
		assert.Equal(t, 401, r.code())
	})
	t.Run("deactivated client", func(t *testing.T) {
		require.NoError(t, e.db.SetClientActive(context.Background(), other.ID, false))
		r := e.upload(otherTok, map[string]any{"rpcQueue": "idv-gateway-v2", "menu": "service-ai", "method": "init",
			"no_adapter": false, "client_id": other.ID, "work_flow_id": e.wfOCR.ID, "config": "kenya_national_id"}, ok...)
		assert.Equal(t, 401, r.status)
	})
	t.Run("body over the request limit", func(t *testing.T) {
		lim := server.DefaultLimits
		lim.RequestBytes = 100 << 10
		e2 := newEnv(t, lim)
		r := e2.upload(e2.token(), e2.uploadMessage(e2.wfOCR, nil), part{"front", front}, part{"back", bigJPEG})
		assert.Equal(t, 413, r.status, string(r.body))
		assert.Equal(t, 413, r.code())
		assert.Zero(t, e2.storedFiles())
	})
}

func TestUploadIdempotentRetry(t *testing.T) {
	e := newEnv(t)
	front, back := captures(t)
	tok := e.token()
	msg := e.uploadMessage(e.wfOCR, map[string]any{"request_id": "order-42"})
	first := e.upload(tok, msg, part{"front", front}, part{"back", back})
	require.Equal(t, 200, first.status, string(first.body))
	e.clock.Store(int64(time.Minute)) // a later retry gets freshly signed URLs
	second := e.upload(tok, msg, part{"front", front}, part{"back", back})
	require.Equal(t, 200, second.status, string(second.body))
	assert.Equal(t, first.str("idv_unique_id"), second.str("idv_unique_id"))
	assert.Equal(t, first.obj["combined"], second.obj["combined"])
	assert.NotEqual(t, first.obj["images"], second.obj["images"], "URLs are re-signed")
	u := second.obj["images"].(map[string]any)["front_id"].(string)
	assert.Equal(t, 200, e.get(u).status)
	assert.EqualValues(t, 1000-2, e.balance(), "billed once")
	assert.EqualValues(t, 1, e.ocr.runs.Load(), "ran once")

	// Concurrent duplicates of a new request id: one run, one bill.
	msg = e.uploadMessage(e.wfOCR, map[string]any{"request_id": "order-43"})
	var wg sync.WaitGroup
	ids := make([]string, 6)
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := e.upload(tok, msg, part{"front", front}, part{"back", back})
			if r.status == 200 {
				ids[i] = r.str("idv_unique_id")
			}
		}()
	}
	wg.Wait()
	for _, id := range ids {
		assert.Equal(t, ids[0], id)
	}
	assert.NotEmpty(t, ids[0])
	assert.EqualValues(t, 1000-4, e.balance())
	assert.EqualValues(t, 2, e.ocr.runs.Load())

	// The same request id from another client is another request.
	other, otherSecret, err := e.admin.CreateClient(context.Background(), e.org.ID, "other")
	require.NoError(t, err)
	owf, err := e.admin.CreateWorkflow(context.Background(), other.ID, otherSecret, idv.Workflow{
		Name: "Other wf", DocumentTypes: []string{"kenya_national_id"}, Checks: []idv.CheckSpec{{Name: idv.CheckOCR}}})
	require.NoError(t, err)
	r := e.upload(e.tokenFor(other.ID, otherSecret), map[string]any{"rpcQueue": "idv-gateway-v2", "menu": "service-ai", "method": "init",
		"no_adapter": false, "client_id": other.ID, "work_flow_id": owf.ID, "config": "kenya_national_id", "request_id": "order-42"},
		part{"front", front}, part{"back", back})
	require.Equal(t, 200, r.status, string(r.body))
	assert.NotEqual(t, first.str("idv_unique_id"), r.str("idv_unique_id"))
}

func TestUploadNoAdapterAndSlots(t *testing.T) {
	e := newEnv(t)
	front, back := captures(t)
	tok := e.token()
	t.Run("no_adapter stores and stops", func(t *testing.T) {
		r := e.upload(tok, e.uploadMessage(e.wfOCR, map[string]any{"no_adapter": true, "ref": "x"}), part{"front", front}, part{"back", back})
		require.Equal(t, 200, r.status, string(r.body))
		assert.Equal(t, "stored", r.str("status"))
		assert.Equal(t, "x", r.str("ref"))
		assert.Equal(t, back, e.get(r.str("back_url")).body)
		assert.Empty(t, r.str("idv_unique_id"))
		assert.EqualValues(t, 1000, e.balance())
		assert.Zero(t, e.ocr.runs.Load())
	})
	t.Run("single file is a legacy upload", func(t *testing.T) {
		r := e.upload(tok, e.uploadMessage(e.wfOCR, nil), part{"document", front})
		require.Equal(t, 200, r.status, string(r.body))
		assert.Equal(t, front, e.get(r.str("document_url")).body)
		assert.Zero(t, e.ocr.runs.Load())
	})
	t.Run("a PDF statement", func(t *testing.T) {
		doc := statementPDF()
		r := e.upload(tok, e.uploadMessage(e.wfOCR, nil), part{"front", front}, part{"back", back}, part{"proof_of_address", doc})
		require.Equal(t, 200, r.status, string(r.body))
		got := e.get(r.str("proof_of_address_url"))
		assert.Equal(t, doc, got.body)
		assert.Equal(t, "application/pdf", got.header.Get("Content-Type"))
	})
	t.Run("any slot name", func(t *testing.T) {
		poa := pngBytes(t, blocks(7, 200, 280))
		r := e.upload(tok, e.uploadMessage(e.wfOCR, nil), part{"front", front}, part{"back", back}, part{"proof_of_address", poa})
		require.Equal(t, 200, r.status, string(r.body))
		u := r.str("proof_of_address_url")
		assert.Equal(t, u, r.obj["images"].(map[string]any)["proof_of_address"])
		got := e.get(u)
		assert.Equal(t, poa, got.body)
		assert.Equal(t, "image/png", got.header.Get("Content-Type"))
	})
}

func TestConcurrentUploads(t *testing.T) {
	e := newEnv(t)
	front, back := captures(t)
	tok := e.token()
	const n = 50
	var wg sync.WaitGroup
	results := make([]response, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := e.uploadRequest(tok, e.uploadMessage(e.wfOCR, map[string]any{"request_id": fmt.Sprintf("c-%d", i)}),
				part{"front", front}, part{"back", back})
			resp, err := e.http.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			results[i].status = resp.StatusCode
			_ = json.NewDecoder(resp.Body).Decode(&results[i].obj)
		}()
	}
	wg.Wait()
	ids := map[string]bool{}
	for i, r := range results {
		require.Equal(t, 200, r.status, "request %d: %v", i, r.obj)
		assert.Equal(t, fmt.Sprintf("c-%d", i), r.str("request_id"))
		ids[r.str("idv_unique_id")] = true
	}
	assert.Len(t, ids, n, "every verification has its own id")
	done, pending, billed, err := e.db.VerificationCounts(context.Background(), e.org.ID)
	require.NoError(t, err)
	assert.EqualValues(t, n, done)
	assert.Zero(t, pending)
	assert.EqualValues(t, 2*n, billed)
	assert.EqualValues(t, 1000-2*n, e.balance())
	assert.EqualValues(t, n, e.ocr.runs.Load())
	assert.Len(t, e.events()["verification.completed"], n)
}

func TestDataKeptAcrossRestart(t *testing.T) {
	e := newEnv(t)
	front, back := captures(t)
	tok := e.token()
	msg := e.uploadMessage(e.wfOCR, map[string]any{"request_id": "before-restart"})
	first := e.upload(tok, msg, part{"front", front}, part{"back", back})
	require.Equal(t, 200, first.status)
	oldURL := first.obj["images"].(map[string]any)["front_id"].(string)

	// A verification interrupted by the stop: its claim holds 900 units.
	require.NoError(t, e.db.ClaimVerification(context.Background(), server.Claim{ID: idv.NewID(), ClientID: e.client.ID,
		OrganisationID: e.org.ID, WorkflowID: e.wfOCR.ID, RequestID: "interrupted", Units: 900}))
	runs := e.ocr.runs.Load()
	e.restart()
	assert.EqualValues(t, 998, e.balance())
	// The token, the stored verification and the file URL survive.
	again := e.upload(tok, msg, part{"front", front}, part{"back", back})
	require.Equal(t, 200, again.status, string(again.body))
	assert.Equal(t, first.str("idv_unique_id"), again.str("idv_unique_id"))
	oldPath := oldURL[strings.Index(oldURL, "/files/"):]
	assert.Equal(t, front, e.get(e.ts.URL+oldPath).body)
	assert.EqualValues(t, 998, e.balance())
	assert.Equal(t, runs, e.ocr.runs.Load(), "the restarted server ran nothing")

	// The interrupted claim was released: its request id runs, and its
	// 900 units are free (996 left after this run).
	r := e.upload(tok, e.uploadMessage(e.wfOCR, map[string]any{"request_id": "interrupted"}), part{"front", front}, part{"back", back})
	require.Equal(t, 200, r.status, string(r.body))
	assert.EqualValues(t, 996, e.balance())
	cl := server.Claim{ID: idv.NewID(), ClientID: e.client.ID, OrganisationID: e.org.ID, WorkflowID: e.wfOCR.ID, RequestID: "big", Units: 996}
	require.NoError(t, e.db.ClaimVerification(context.Background(), cl))

	wf, err := e.db.Workflow(context.Background(), e.wfFace.ID)
	require.NoError(t, err)
	assert.Equal(t, e.wfFace.RefreshToken, wf.RefreshToken)
}

func TestMetadataTypesCheckedBeforeStoring(t *testing.T) {
	e := newEnv(t)
	def := idv.Workflow{Name: "With metadata", DocumentTypes: []string{"kenya_national_id"},
		Checks: []idv.CheckSpec{{Name: idv.CheckOCR}}, MetadataFields: map[string]string{"account": "string", "score": "number"}}
	wf, err := e.admin.CreateWorkflow(context.Background(), e.client.ID, e.secret, def)
	require.NoError(t, err)
	front, back := captures(t)
	tok := e.token()
	r := e.upload(tok, e.uploadMessage(wf, map[string]any{"metadata": map[string]any{"account": 12}}), part{"front", front}, part{"back", back})
	assert.Equal(t, 104, r.code(), string(r.body))
	assert.Zero(t, e.storedFiles())
	r = e.upload(tok, e.uploadMessage(wf, map[string]any{"metadata": map[string]any{"account": "A-1", "score": 3}}), part{"front", front}, part{"back", back})
	require.Equal(t, 200, r.status, string(r.body))
	assert.Equal(t, map[string]any{"account": "A-1", "score": 3.0}, r.obj["metadata"])
	var data map[string]any
	require.NoError(t, json.Unmarshal(e.events()["verification.completed"][0].Data, &data))
	assert.Equal(t, map[string]any{"account": "A-1", "score": 3.0}, data["metadata"])
}

func TestFileURLs(t *testing.T) {
	e := newEnv(t)
	front, back := captures(t)
	r := e.upload(e.token(), e.uploadMessage(e.wfOCR, nil), part{"front", front}, part{"back", back})
	require.Equal(t, 200, r.status)
	u := r.obj["images"].(map[string]any)["front_id"].(string)
	rest := strings.TrimPrefix(u, e.ts.URL+"/files/")
	seg := strings.SplitN(rest, "/", 3)
	require.Len(t, seg, 3)
	exp, sig, key := seg[0], seg[1], seg[2]
	flip := []byte(sig)
	flip[0] ^= 1
	cases := []struct {
		name   string
		url    string
		status int
	}{
		{"valid", u, 200},
		{"bad signature", e.ts.URL + "/files/" + exp + "/" + string(flip) + "/" + key, 403},
		{"other key, same signature", e.ts.URL + "/files/" + exp + "/" + sig + "/" + strings.Replace(key, "front", "back", 1), 403},
		{"later expiry, same signature", e.ts.URL + "/files/9" + exp + "/" + sig + "/" + key, 403},
		{"traversal", e.ts.URL + "/files/" + exp + "/" + sig + "/../tambua.db", 403},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.status, e.get(tc.url).status)
		})
	}
	t.Run("expired", func(t *testing.T) {
		e.clock.Store(int64(25 * time.Hour))
		defer e.clock.Store(0)
		assert.Equal(t, 403, e.get(u).status)
	})
}

func TestMethodNotAllowedAndUnknownPath(t *testing.T) {
	e := newEnv(t)
	r := e.get(e.ts.URL + "/upload")
	assert.Equal(t, http.StatusMethodNotAllowed, r.status)
	assert.Equal(t, 405, r.code())
	r = e.get(e.ts.URL + "/nowhere")
	assert.Equal(t, 404, r.status)
	assert.Equal(t, 404, r.code())
}

// gate is a custom check that holds its worker until released.
type gate struct {
	entered chan struct{}
	release chan struct{}
}

func (g *gate) Name() string { return "gate_check" }
func (g *gate) Cost() int    { return 1 }
func (g *gate) Run(ctx context.Context, c *idv.Case) (idv.Outcome, error) {
	g.entered <- struct{}{}
	select {
	case <-g.release:
		return idv.Passed(1), nil
	case <-ctx.Done():
		return idv.Outcome{}, ctx.Err()
	}
}

func TestBusyWorkersAnswer230(t *testing.T) {
	g := &gate{entered: make(chan struct{}, 4), release: make(chan struct{})}
	e := newEnvWith(t, func(c *server.Config) {
		c.Workers = 1
		c.QueueTimeout = 300 * time.Millisecond
	}, g)
	wf := e.createWorkflow("Gated", idv.CheckOCR, "gate_check")
	front, back := captures(t)
	tok := e.token()
	first := make(chan response, 1)
	go func() {
		first <- e.upload(tok, e.uploadMessage(wf, map[string]any{"request_id": "slow"}), part{"front", front}, part{"back", back})
	}()
	<-g.entered // the only worker is busy
	r := e.upload(tok, e.uploadMessage(wf, map[string]any{"request_id": "queued"}), part{"front", front}, part{"back", back})
	assert.Equal(t, 503, r.status)
	assert.Equal(t, 230, r.code())
	assert.Equal(t, 2, e.storedFiles(), "only the running verification's captures are kept")
	close(g.release)
	got := <-first
	require.Equal(t, 200, got.status, string(got.body))
	assert.EqualValues(t, 3, got.obj["units_consumed"])
	assert.EqualValues(t, 1000-3, e.balance(), "the refused request was not billed")
	// Its claim was released: the same request id runs now.
	r = e.upload(tok, e.uploadMessage(wf, map[string]any{"request_id": "queued"}), part{"front", front}, part{"back", back})
	require.Equal(t, 200, r.status, string(r.body))
}

// failingDerived refuses to store derived images, as a full disk would.
type failingDerived struct{ server.FileStore }

func (f failingDerived) Put(ctx context.Context, key string, data []byte) error {
	if strings.HasSuffix(key, "/front_rectified.jpg") {
		return fmt.Errorf("disk full")
	}
	return f.FileStore.Put(ctx, key, data)
}

func TestEngineFailureAnswers502AndBillsNothing(t *testing.T) {
	e := &env{t: t, dir: t.TempDir(), ocr: &ocrStandIn{}, logs: &syncBuffer{},
		wrapFiles: func(fs server.FileStore) server.FileStore { return failingDerived{fs} }}
	e.start()
	org, err := e.admin.CreateOrganisation(context.Background(), "Org")
	require.NoError(t, err)
	_, err = e.admin.AddUnits(context.Background(), org.ID, 10)
	require.NoError(t, err)
	e.org = org
	e.client, e.secret, err = e.admin.CreateClient(context.Background(), org.ID, "c")
	require.NoError(t, err)
	wf := e.createWorkflow("OCR", idv.CheckOCR)
	front, back := captures(t)
	r := e.upload(e.token(), e.uploadMessage(wf, map[string]any{"request_id": "r1"}), part{"front", front}, part{"back", back})
	assert.Equal(t, 502, r.status, string(r.body))
	assert.Equal(t, 502, r.code())
	assert.EqualValues(t, 10, e.balance())
	assert.Zero(t, e.storedFiles(), "the captures of the failed run are deleted")
	done, pending, _, err := e.db.VerificationCounts(context.Background(), org.ID)
	require.NoError(t, err)
	assert.Zero(t, done+pending)
	assert.Contains(t, e.logs.String(), "disk full")
}

// statementPDF is a one-page PDF with a line of text, as a bank's
// statement download is.
func statementPDF() []byte { return bills.TextPages(1, "STATEMENT OF ACCOUNT") }

// encryptedPDF is a PDF protected by a password.
func encryptedPDF() []byte {
	return bills.PDF([]string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [] /Count 0 >>",
		"<< /Filter /Standard /V 1 /R 2 /O (0123456789abcdef0123456789abcdef) /U (0123456789abcdef0123456789abcdef) /P -4 >>"},
		"/Encrypt 3 0 R /ID [<00112233445566778899aabbccddeeff> <00112233445566778899aabbccddeeff>]")
}
