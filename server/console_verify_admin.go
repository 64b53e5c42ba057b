package server

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/server/store"
)

// The admin's personal verification at sign-up (spec, Console: "government
// ID upload and live selfie"): the captures run through this server's own
// engine, the verdict is recorded on the organisation. It is not billed
// and its images are not stored: only the verdict is kept.

// adminChecks are the checks the admin's verification runs, those this
// engine has: OCR always, face matching and liveness when built in.
var adminChecks = []string{idv.CheckOCR, idv.CheckFace, idv.CheckLiveness}

// adminRunsPerDay caps the admin's verifications per organisation in 24
// hours: enough for retakes after a blurred or glared photo, too few to
// turn the free run into a free verification service. Counted from the
// audit log (organisation.admin_verified), so it holds across restarts
// and replicas.
const adminRunsPerDay = 5

// AdminVerification is the answer of POST
// /console/api/organisation/verify-admin.
type AdminVerification struct {
	OrganisationID int64             `json:"organisation_id"`
	ID             string            `json:"admin_verification_id"`
	Decision       string            `json:"admin_verification_decision"`
	Reasons        []string          `json:"decision_reasons"`
	Checks         []idv.CheckResult `json:"check_results"`
}

func (c *console) verifyAdmin(ctx context.Context, m *member, tf *testFiles) (store.OrgProfile, *idv.Result, error) {
	config := tf.config
	if config == "" {
		return store.OrgProfile{}, nil, idv.Errorf(idv.EInvalid, "choose the document type")
	}
	if _, ok := c.s.defs.Definition(config); !ok {
		return store.OrgProfile{}, nil, idv.Errorf(idv.EInvalid, "unknown document type")
	}
	def := idv.Workflow{Name: "Admin verification", DocumentTypes: []string{config}}
	for _, ch := range adminChecks {
		if _, err := c.s.engine.Check(ch); err == nil || ch == idv.CheckOCR {
			def.Checks = append(def.Checks, idv.CheckSpec{Name: ch})
		}
	}
	// Refusals that need no image first: an accepted verification (by
	// the engine or an operator) is final; runs are limited.
	if p, err := c.st.OrgProfile(ctx, m.org()); err == nil && p.AdminVerificationDecision == string(idv.Accept) {
		return store.OrgProfile{}, nil, idv.Errorf(idv.EInvalid, "your identity is already verified")
	}
	if au, ok := c.s.store.(store.Audit); ok {
		since := c.s.cfg.Now().Add(-24 * time.Hour)
		runs, err := au.AuditLog(ctx, m.org(), store.AuditFilter{Action: "organisation.admin_verified", Since: since, Limit: adminRunsPerDay})
		if err != nil {
			return store.OrgProfile{}, nil, err
		}
		if len(runs) >= adminRunsPerDay {
			// Newest first: the oldest of the last five frees a run.
			wait := max(runs[len(runs)-1].CreatedAt.Sub(since), time.Second)
			return store.OrgProfile{}, nil, &APIError{Code: CodeRateLimited, RetryAfter: int(wait.Seconds()),
				Message: fmt.Sprintf("at most %d identity verifications a day; try again tomorrow or ask the operator of this installation", adminRunsPerDay)}
		}
	}
	images := map[string]idv.Image{}
	for i, f := range tf.files {
		format, aerr := c.s.checkImage(ctx, f.slot, f.data)
		if aerr != nil {
			return store.OrgProfile{}, nil, aerr
		}
		tf.files[i].format = format
		images[f.slot] = idv.Image{Data: f.data, ContentType: contentType(format)}
	}
	if _, ok := images["selfie"]; !ok {
		return store.OrgProfile{}, nil, idv.Errorf(idv.EInvalid, "a live selfie is required")
	}
	prep, err := c.s.engine.Prepare(&def)
	if err != nil {
		return store.OrgProfile{}, nil, apiErr(CodeCheckUnavailable, "this server cannot run the verification: %s", strings.TrimPrefix(err.Error(), "idv: "))
	}
	// A worker slot like any verification, so sign-ups cannot crowd out
	// the API's verifications.
	select {
	case c.s.workers <- struct{}{}:
	case <-ctx.Done():
		return store.OrgProfile{}, nil, apiErr(CodeBusy, "no verification worker became free in time")
	}
	runCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.s.cfg.RunTimeout)
	res, err := prep.Verify(runCtx, idv.Input{Config: config, Images: images, RequestID: idv.NewRequestID(), WorkflowID: "admin-verification"})
	cancel()
	<-c.s.workers
	if err != nil {
		return store.OrgProfile{}, nil, err
	}
	p, err := c.st.OrgProfile(ctx, m.org())
	if err != nil {
		p = store.OrgProfile{OrganisationID: m.org()}
	}
	p.AdminVerificationID, p.AdminVerificationDecision = idv.NewID(), string(res.Decision)
	if err := c.st.PutOrgProfile(ctx, p); err != nil {
		return p, nil, err
	}
	_ = m.admin.audit(ctx, m.org(), "organisation.admin_verified", "organisation", p.AdminVerificationID, string(res.Decision))
	return p, res, nil
}

func (c *console) apiVerifyAdmin(w http.ResponseWriter, r *http.Request, m *member) *APIError {
	tf, aerr := c.readTestForm(w, r)
	if aerr != nil {
		return aerr
	}
	p, res, err := c.verifyAdmin(r.Context(), m, tf)
	if err != nil {
		return consoleErr(err)
	}
	out := AdminVerification{OrganisationID: p.OrganisationID, ID: p.AdminVerificationID, Decision: p.AdminVerificationDecision,
		Reasons: res.DecisionReasons, Checks: res.CheckResults}
	if out.Reasons == nil {
		out.Reasons = []string{}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (c *console) pgVerifyAdmin(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	p, _ := c.st.OrgProfile(r.Context(), m.org())
	return view{Title: "Verify your identity", Nav: "verify_admin", D: map[string]any{"P": p, "DocTypes": c.docTypes(),
		"Welcome": r.URL.Query().Get("welcome") != ""}}, "", nil
}

func (c *console) pgVerifyAdminPost(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	v, _, _ := c.pgVerifyAdmin(w, r, m)
	tf, aerr := c.readTestForm(w, r)
	if aerr != nil {
		return v, "", aerr
	}
	p, res, err := c.verifyAdmin(r.Context(), m, tf)
	if err != nil {
		return v, "", err
	}
	type checkRow struct {
		Name, Status string
		Confidence   *float64
	}
	rows := make([]checkRow, 0, len(res.CheckResults))
	for _, cr := range res.CheckResults {
		rows = append(rows, checkRow{cr.Name, string(cr.Status), cr.Confidence})
	}
	d := v.D.(map[string]any)
	d["P"], d["Reasons"], d["Checks"] = p, res.DecisionReasons, rows
	return v, "", nil
}
