package server_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"image/png"
	"strings"
	"testing"
	"time"

	"github.com/makiuchi-d/gozxing"
	"github.com/makiuchi-d/gozxing/qrcode"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/server"
)

// desktopSession opens an SDK session of wf as a page on shopOrigin does
// and returns its access token.
func desktopSession(e *env, wf server.Workflow) string {
	e.t.Helper()
	r := issue(e, shopOrigin, wf)
	require.Equal(e.t, 200, r.status, string(r.body))
	ref := refreshSession(e, r.str("sdk_token"))
	require.Equal(e.t, 200, ref.status, string(ref.body))
	return ref.str("access_token")
}

func createHandoff(e *env, access string, fields map[string]any) response {
	return e.postFrom(shopOrigin, access, envelope("auth_config", "createHandoff", fields))
}

// redeem is the phone's page: no Origin of a customer, no credentials.
func redeem(e *env, tok string) response {
	return e.postFrom("", "", envelope("auth_config", "redeemHandoff", map[string]any{"handoff_token": tok}))
}

func handoffStatus(e *env, access, tok string) response {
	return e.postFrom(shopOrigin, access, envelope("auth_config", "getHandoffStatus", map[string]any{"handoff_token": tok}))
}

// decodeQR reads the QR code of a PNG data URL.
func decodeQR(t *testing.T, dataURL string) string {
	t.Helper()
	b64, ok := strings.CutPrefix(dataURL, "data:image/png;base64,")
	require.True(t, ok, dataURL[:min(40, len(dataURL))])
	raw, err := base64.StdEncoding.DecodeString(b64)
	require.NoError(t, err)
	img, err := png.Decode(bytes.NewReader(raw))
	require.NoError(t, err)
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	require.NoError(t, err)
	res, err := qrcode.NewQRCodeReader().Decode(bmp, nil)
	require.NoError(t, err)
	return res.GetText()
}

func TestHandoffFlow(t *testing.T) {
	e := newEnv(t)
	wf := e.webWorkflow("Web shop")
	desk := desktopSession(e, wf)

	h := createHandoff(e, desk, map[string]any{"config": "kenya_national_id"})
	require.Equal(t, 200, h.status, string(h.body))
	tok := h.str("handoff_token")
	assert.Equal(t, e.ts.URL+"/handoff#"+tok, h.str("handoff_url"), "the token in the fragment, never sent to a server")
	assert.EqualValues(t, 600, h.obj["expires_in"])
	assert.Equal(t, h.str("handoff_url"), decodeQR(t, h.str("qr_code")), "the QR code is the URL")

	st := handoffStatus(e, desk, tok)
	require.Equal(t, 200, st.status, string(st.body))
	assert.Equal(t, "waiting", st.str("state"))

	r := redeem(e, tok)
	require.Equal(t, 200, r.status, string(r.body))
	c := sdkClaims(t, r.str("sdk_token"))
	assert.Equal(t, wf.ID, c["workflowId"])
	assert.Equal(t, "kenya_national_id", c["config"], "the desktop's document type goes to the phone")
	assert.NotEqual(t, wf.RefreshToken, c["refresh_token"])
	assert.Equal(t, 401, redeem(e, tok).code(), "a hand-off code opens one phone")
	assert.Equal(t, "opened", handoffStatus(e, desk, tok).str("state"))

	ref := refreshSession(e, r.str("sdk_token"))
	require.Equal(t, 200, ref.status, string(ref.body))
	phone := ref.str("access_token")
	assert.Equal(t, 403, createHandoff(e, phone, nil).code(), "a phone's session does not hand off again")
	assert.Equal(t, 403, handoffStatus(e, phone, tok).code(), "the phone is not the session that handed off")

	front, back := captures(t)
	submit := func(requestID string) response {
		return e.postFrom("", phone, envelope("verification", "submitVerification", map[string]any{"payload": deflate(t, map[string]any{
			"client_id": e.client.ID, "work_flow_id": wf.ID, "request_id": requestID,
			"id_front_image_url": dataURL(front), "id_back_image_url": dataURL(back), "selfie_image_url": dataURL(front)})}))
	}
	v := submit("phone-1")
	require.Equal(t, 200, v.status, string(v.body))
	again := submit("phone-2")
	require.Equal(t, 200, again.status, string(again.body))
	assert.Equal(t, v.str("idv_unique_id"), again.str("idv_unique_id"), "the hand-off's one verification, replayed")
	assert.True(t, strings.HasPrefix(again.str("request_id"), "handoff-"), again.str("request_id"))

	done := handoffStatus(e, desk, tok)
	require.Equal(t, 200, done.status, string(done.body))
	assert.Equal(t, "completed", done.str("state"))
	res, _ := done.obj["result"].(map[string]any)
	require.NotNil(t, res, string(done.body))
	assert.Equal(t, v.str("idv_unique_id"), res["idv_unique_id"])
	assert.Equal(t, "accept", res["verification_decision"])
}

func TestHandoffRefusals(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	wf := e.webWorkflow("Web shop")
	desk := desktopSession(e, wf)
	fresh := func() string {
		h := createHandoff(e, desk, nil)
		require.Equal(t, 200, h.status, string(h.body))
		return h.str("handoff_token")
	}
	tok := fresh()

	// Another organisation, with its own workflow and desktop session.
	orgB, err := e.admin.CreateOrganisation(ctx, "Other")
	must(t, err)
	_, err = e.admin.AddUnits(ctx, orgB.ID, 100)
	must(t, err)
	clientB, secretB, err := e.admin.CreateClient(ctx, orgB.ID, "other")
	must(t, err)
	wfB, err := e.admin.CreateWorkflow(ctx, clientB.ID, secretB, idv.Workflow{Name: "B shop", DocumentTypes: []string{"kenya_national_id"},
		Checks: []idv.CheckSpec{{Name: idv.CheckOCR}}, WebSDK: &idv.SDKConfig{AllowedOrigins: []string{shopOrigin}}})
	must(t, err)
	rB := e.postFrom(shopOrigin, "", envelope("auth_config", "issueSdkToken", map[string]any{"client_id": clientB.ID, "work_flow_id": wfB.ID}))
	require.Equal(t, 200, rB.status, string(rB.body))
	refB := refreshSession(e, rB.str("sdk_token"))
	require.Equal(t, 200, refB.status)
	deskB := refB.str("access_token")

	parts := strings.Split(tok, ".")
	tampered := parts[0] + "." + parts[1] + "." + strings.Repeat("A", len(parts[2]))

	cases := []struct {
		name string
		got  response
		code int
	}{
		{"create without a token", createHandoff(e, "", nil), 401},
		{"create with the client's own token (no session)", createHandoff(e, e.token(), nil), 403},
		{"create with a config not of the workflow", createHandoff(e, desk, map[string]any{"config": "ke_passport_x"}), 422},
		{"status from another organisation's session", handoffStatus(e, deskB, tok), 403},
		{"status from another session of the same workflow", handoffStatus(e, desktopSession(e, wf), tok), 403},
		{"status without a token", handoffStatus(e, "", tok), 401},
		{"status of a forged token", handoffStatus(e, desk, tampered), 401},
		{"status of an access token", handoffStatus(e, desk, desk), 401},
		{"redeem a forged token", redeem(e, tampered), 401},
		{"redeem an access token", redeem(e, desk), 401},
		{"redeem nothing", redeem(e, ""), 104},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.code, tc.got.code(), string(tc.got.body))
		})
	}
	// Organisation B's session cannot redeem-and-read A's hand-off either:
	// redeeming gives a session of A's workflow, whose token B's desktop
	// cannot use for status.
	assert.Equal(t, 200, handoffStatus(e, desk, tok).status)

	t.Run("expired", func(t *testing.T) {
		old := fresh()
		e.clock.Store(int64(server.HandoffTTL + time.Minute))
		defer e.clock.Store(0)
		assert.Equal(t, 401, redeem(e, old).code())
		st := handoffStatus(e, desk, old)
		// The desktop's own session has outlived nothing yet (30 min).
		require.Equal(t, 200, st.status, string(st.body))
		assert.Equal(t, "expired", st.str("state"))
		assert.EqualValues(t, 0, st.obj["expires_in"])
	})
	t.Run("rotating the workflow token ends its codes", func(t *testing.T) {
		code := fresh()
		_, err := e.admin.RotateRefreshToken(ctx, wf.ID, 0)
		must(t, err)
		assert.Equal(t, 401, redeem(e, code).code())
	})
	t.Run("codes per session", func(t *testing.T) {
		d := desktopSession(e, wf)
		for i := 0; i < 5; i++ {
			require.Equal(t, 200, createHandoff(e, d, nil).status)
		}
		assert.Equal(t, 429, createHandoff(e, d, nil).code())
	})
}
