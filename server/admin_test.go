package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/server"
)

func TestWorkflowCreationRules(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	def := idv.Workflow{Name: "Fresh", DocumentTypes: []string{"kenya_national_id"}, Checks: []idv.CheckSpec{{Name: idv.CheckOCR}}}
	_, err := e.admin.CreateWorkflow(ctx, e.client.ID, "wrong", def)
	assert.ErrorIs(t, err, server.ErrInvalidClientSecret)
	assert.Equal(t, "Invalid client secret", err.Error())
	_, err = e.admin.CreateWorkflow(ctx, idv.NewRequestID(), e.secret, def)
	assert.Equal(t, "Client not found", err.Error())
	require.NoError(t, e.db.SetClientActive(ctx, e.client.ID, false))
	_, err = e.admin.CreateWorkflow(ctx, e.client.ID, e.secret, def)
	assert.Equal(t, "Client inactive", err.Error())
	require.NoError(t, e.db.SetClientActive(ctx, e.client.ID, true))

	_, err = e.admin.CreateWorkflow(ctx, e.client.ID, e.secret, idv.Workflow{Name: "OCR only", DocumentTypes: def.DocumentTypes, Checks: def.Checks})
	assert.ErrorIs(t, err, server.ErrWorkflowName)
	_, err = e.admin.CreateWorkflow(ctx, e.client.ID, e.secret, idv.Workflow{Name: "No OCR", DocumentTypes: def.DocumentTypes, Checks: []idv.CheckSpec{{Name: idv.CheckFace}}})
	var ve *idv.ValidationError
	assert.ErrorAs(t, err, &ve)

	w, err := e.admin.CreateWorkflow(ctx, e.client.ID, e.secret, def)
	require.NoError(t, err)
	assert.Equal(t, idv.WorkflowActive, w.Status)
	// The refresh token is a JWT naming the workflow, client and organisation.
	var claims server.Claims
	_, _, err = jwt.NewParser().ParseUnverified(w.RefreshToken, &claims)
	require.NoError(t, err)
	assert.Equal(t, w.ID, claims.Workflow)
	assert.Equal(t, e.client.ID, claims.Subject)
	assert.Equal(t, e.org.ID, claims.Org)
	assert.Len(t, e.events()["workflow.created"], 3)
}

func TestWorkflowEditDuplicateArchive(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	front, back := captures(t)
	tok := e.token()
	other := jpegBytes(t, blocks(99, 480, 300))
	upload := func(wf server.Workflow) response {
		return e.upload(tok, e.uploadMessage(wf, nil), part{"front", front}, part{"back", back}, part{"selfie", other})
	}
	require.Equal(t, "review", upload(e.wfFace).str("verification_decision"))

	t.Run("edit applies to later verifications", func(t *testing.T) {
		def := e.wfFace.Definition
		def.ManualReview = &idv.ManualReview{Enabled: true, AutoDecline: true}
		def.Description = "auto-decline below threshold"
		_, err := e.admin.EditWorkflow(ctx, e.wfFace.ID, def)
		require.NoError(t, err)
		r := upload(e.wfFace)
		assert.Equal(t, "reject", r.str("verification_decision"))
		assert.Len(t, e.events()["verification.failed"], 1)
		var data map[string]any
		require.NoError(t, json.Unmarshal(e.events()["verification.failed"][0].Data, &data))
		assert.Equal(t, "face_matching", data["failed_check"])
		assert.Equal(t, 0.75, data["threshold"])
	})
	t.Run("edit cannot change document types or required checks", func(t *testing.T) {
		def := e.wfFace.Definition
		def.DocumentTypes = []string{"ke_passport"}
		_, err := e.admin.EditWorkflow(ctx, e.wfFace.ID, def)
		assert.ErrorContains(t, err, "document types")
		def = e.wfFace.Definition
		def.Checks = append([]idv.CheckSpec(nil), def.Checks...)
		def.Checks[1].Required = true
		_, err = e.admin.EditWorkflow(ctx, e.wfFace.ID, def)
		assert.ErrorContains(t, err, "required checks")
	})
	t.Run("duplicate", func(t *testing.T) {
		d, err := e.admin.DuplicateWorkflow(ctx, e.wfFace.ID, e.secret, "Copy of face")
		require.NoError(t, err)
		assert.NotEqual(t, e.wfFace.ID, d.ID)
		assert.NotEqual(t, e.wfFace.RefreshToken, d.RefreshToken)
		assert.Equal(t, "reject", upload(d).str("verification_decision"), "the copy has the edited settings")
	})
	t.Run("archive hides, activate restores", func(t *testing.T) {
		_, err := e.admin.SetWorkflowStatus(ctx, e.wfOCR.ID, idv.WorkflowArchived)
		require.NoError(t, err)
		assert.Equal(t, 404, upload(e.wfOCR).code())
		_, err = e.admin.SetWorkflowStatus(ctx, e.wfOCR.ID, idv.WorkflowActive)
		require.NoError(t, err)
		assert.Equal(t, 200, upload(e.wfOCR).status)
		_, err = e.admin.SetWorkflowStatus(ctx, e.wfOCR.ID, idv.WorkflowDraft)
		require.NoError(t, err)
		assert.Equal(t, 404, upload(e.wfOCR).code(), "Draft is invisible too")
		ev := e.events()
		assert.Len(t, ev["workflow.deactivated"], 2)
		assert.Len(t, ev["workflow.activated"], 1)
		assert.Len(t, ev["workflow.updated"], 1)
	})
}

func TestUnitsEvents(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	front, back := captures(t)
	tok := e.token()
	// 1000 units: take the balance to 54, threshold 50: two OCR runs (2
	// each) cross it at 50 -> 48... then deplete.
	_, err := e.admin.AddUnits(ctx, e.org.ID, -946)
	require.NoError(t, err)
	run := func() response {
		return e.upload(tok, e.uploadMessage(e.wfOCR, nil), part{"front", front}, part{"back", back})
	}
	for range 2 {
		require.Equal(t, 200, run().status)
	}
	assert.Empty(t, e.events()["units.low_balance"], "50 is not below the threshold")
	require.Equal(t, 200, run().status)
	low := e.events()["units.low_balance"]
	require.Len(t, low, 1)
	var data map[string]any
	require.NoError(t, json.Unmarshal(low[0].Data, &data))
	assert.EqualValues(t, 48, data["current_balance"])
	assert.EqualValues(t, 50, data["threshold"])
	assert.EqualValues(t, 24, data["estimated_verifications_remaining"])
	assert.Regexp(t, `^\d{4}-\d{2}-\d{2}$`, data["projected_depletion_date"])
	require.Equal(t, 200, run().status)
	assert.Len(t, e.events()["units.low_balance"], 1, "recorded once, when crossing")

	_, err = e.admin.AddUnits(ctx, e.org.ID, -44) // 46 -> 2
	require.NoError(t, err)
	require.Equal(t, 200, run().status)
	dep := e.events()["units.depleted"]
	require.Len(t, dep, 1)
	assert.EqualValues(t, 0, e.balance())
	r := run()
	assert.Equal(t, 402, r.status)
	assert.Equal(t, 402, r.code())
	assert.True(t, strings.Contains(r.str("v_field48"), "2"))

	// Units spent on the face workflow: 5.
	_, err = e.admin.AddUnits(ctx, e.org.ID, 4)
	require.NoError(t, err)
	r = e.upload(tok, e.uploadMessage(e.wfFace, nil), part{"front", front}, part{"back", back}, part{"selfie", front})
	assert.Equal(t, 402, r.code(), "4 units do not pay for 5")
	assert.EqualValues(t, 4, e.balance())
}

func TestSDKToken(t *testing.T) {
	e := newEnv(t)
	tok, err := e.admin.SDKToken(e.wfFace, e.ts.URL+"/postdata", "kenya_national_id", 3600e9)
	require.NoError(t, err)
	claims := jwt.MapClaims{}
	_, err = jwt.ParseWithClaims(tok, claims, func(*jwt.Token) (any, error) { return e.keys().Token, nil })
	require.NoError(t, err)
	for _, k := range []string{"workflowId", "clientId", "organisationId", "apiUrl", "refresh_token", "config", "iat", "exp"} {
		assert.Contains(t, claims, k)
	}
	// The SDK flow from its token alone: refresh, then fetch the workflow.
	r := e.postJSON("/postdata", "", envelope("auth_config", "refreshAccessToken",
		map[string]any{"refresh_token": claims["refresh_token"], "organisation_id": claims["organisationId"]}))
	require.Equal(t, 200, r.status, string(r.body))
	w := e.postJSON("/postdata", r.str("access_token"), envelope("flow", "getWorkflowById", map[string]any{"work_flow_id": claims["workflowId"]}))
	assert.Equal(t, 200, w.status)
}
