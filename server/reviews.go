package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/server/store"
	"github.com/tambua/tambua/server/webhook"
)

// Manual review and erasure (issue 19, docs/reviews.md): the operations
// the console will sit on, served to API clients and to the admin CLI.

// ReviewReasons are the reason codes a reviewer's decision carries.
var ReviewReasons = []string{
	"document_fraudulent", "face_mismatch", "document_expired", "poor_quality",
	"sanctions_match_confirmed", "other",
}

// ReviewCase and the other review types live in server/store.
type (
	ReviewCase     = store.ReviewCase
	ReviewAction   = store.ReviewAction
	ReviewFilter   = store.ReviewFilter
	ReviewDecision = store.ReviewDecision
	Reviews        = store.Reviews
)

// Review errors.
var (
	ErrNotInReview  = store.ErrNotInReview
	ErrDecided      = store.ErrDecided
	ErrChanged      = store.ErrChanged
	ErrSameReviewer = store.ErrSameReviewer
)

// DecisionInput is a reviewer's decision as the API and the CLI take it.
type DecisionInput struct {
	// Decision is "approve" or "reject".
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
	Note     string `json:"note"`
	// Reviewer is the person deciding (an email address or a name).
	Reviewer string `json:"reviewer"`
}

// maxNote bounds a reviewer's note: a paragraph or two, not a document.
const maxNote = 2000

// validName reports whether s is a one-line name of 1 to 254 characters
// (an email address's limit) without control characters.
func validName(s string) bool {
	if s == "" || len(s) > 254 {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}

func (in DecisionInput) validate() error {
	if in.Decision != "approve" && in.Decision != "reject" {
		return idv.Errorf(idv.EInvalid, "decision must be approve or reject")
	}
	if !contains(ReviewReasons, in.Reason) {
		return idv.Errorf(idv.EInvalid, "reason must be one of %s", strings.Join(ReviewReasons, ", "))
	}
	if !validName(in.Reviewer) {
		return idv.Errorf(idv.EInvalid, "reviewer must be 1 to 254 characters on one line")
	}
	if len(in.Note) > maxNote || strings.ContainsRune(in.Note, 0) {
		return idv.Errorf(idv.EInvalid, "note must have at most %d characters", maxNote)
	}
	return nil
}

// reviewDesk holds the review operations shared by the API and Admin.
type reviewDesk struct {
	st Store
	rv Reviews
}

// decide records a decision and its event (verification.completed on
// approval, verification.failed on rejection) in one transaction. Under
// the workflow's four-eyes rule (manual_review.four_eyes, the rule in
// force when deciding) a decision that needs a second reviewer is
// recorded as the case's first decision; another reviewer's same decision
// confirms it and decides the case, a different one overturns it (and is
// itself a first decision when the rule asks). The reviewer of a waiting
// first decision cannot decide the case again: ErrSameReviewer.
func (d reviewDesk) decide(ctx context.Context, orgID int64, id string, in DecisionInput, actor, addr string) (ReviewCase, error) {
	if err := in.validate(); err != nil {
		return ReviewCase{}, err
	}
	c, err := d.rv.ReviewCase(ctx, orgID, id)
	if err != nil {
		return c, err
	}
	wf, err := d.st.Workflow(ctx, c.WorkflowID)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return c, err
	}
	wf.ID = c.WorkflowID
	approve := in.Decision == "approve"
	dec := ReviewDecision{Approve: approve, Reason: in.Reason, Note: in.Note, Reviewer: in.Reviewer, Actor: actor, Address: addr,
		First: wf.Definition.Review().NeedsSecond(approve)}
	if c.State == store.ReviewOpen && c.First != nil {
		dec.Seen = c.First.Reviewer
		if strings.EqualFold(c.First.Reviewer, in.Reviewer) {
			return c, fmt.Errorf("%w: you made this case's first decision; another reviewer must confirm or overturn it", ErrSameReviewer)
		}
		if c.First.Approve == approve {
			dec.First = false // the second reviewer's confirmation
		}
	}
	return d.rv.DecideReview(ctx, orgID, id, dec, func(c ReviewCase, v Verification) ([]Event, error) {
		return reviewEvents(wf, c, v)
	})
}

// reviewEvents builds the late outcome's event from the stored result:
// the spec's data of verification.completed or verification.failed plus
// the review object.
func reviewEvents(wf Workflow, c ReviewCase, v Verification) ([]Event, error) {
	var stored struct {
		CheckResults       []idv.CheckResult      `json:"check_results"`
		Combined           map[string]string      `json:"combined"`
		PerformanceMetrics idv.PerformanceMetrics `json:"performance_metrics"`
		UnitsConsumed      int                    `json:"units_consumed"`
		DecisionReasons    []string               `json:"decision_reasons"`
		Metadata           json.RawMessage        `json:"metadata"`
	}
	if err := json.Unmarshal(v.Result, &stored); err != nil {
		return nil, fmt.Errorf("server: stored result of %s: %w", v.ID, err)
	}
	res := &idv.Result{IDVUniqueID: v.ID, CheckResults: stored.CheckResults, Combined: stored.Combined,
		PerformanceMetrics: stored.PerformanceMetrics, UnitsConsumed: stored.UnitsConsumed, DecisionReasons: stored.DecisionReasons}
	if len(stored.Metadata) > 0 {
		res.Extra = map[string]json.RawMessage{"metadata": stored.Metadata}
	}
	review := webhook.ReviewOutcome{Decision: c.State, Reason: c.Reason, Reviewer: c.Reviewer}
	if c.DecidedAt != nil {
		review.DecidedAt = c.DecidedAt.UTC().Format(webhook.TimestampLayout)
	}
	if c.First != nil && c.First.Approve == (c.State == store.ReviewApproved) {
		// The first decision this one confirmed (one it overturned is in
		// the history only).
		review.FirstReviewer, review.FirstDecidedAt = c.First.Reviewer, c.First.At.UTC().Format(webhook.TimestampLayout)
	}
	var name string
	var data map[string]any
	if c.State == store.ReviewApproved {
		res.Decision = idv.Accept
		name, data = "verification.completed", completedData(wf, res)
	} else {
		res.Decision = idv.Reject
		name, data = "verification.failed", failedData(wf, res)
		// No check failed: the reviewer did. The check that sent the
		// case to review gives the confidence and threshold.
		data["reason"], data["failed_check"] = c.Reason, "manual_review"
		for _, cr := range res.CheckResults {
			if cr.Status == idv.StatusReview || cr.Status == idv.StatusError {
				if cr.Confidence != nil {
					data["confidence"] = *cr.Confidence
				}
				if cr.Threshold != nil {
					data["threshold"] = *cr.Threshold
				}
				break
			}
		}
	}
	data["review"] = review
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	return []Event{{EventID: idv.NewRequestID(), Event: name, OrganisationID: v.OrganisationID, Data: raw}}, nil
}

// erasedSections are result sections that carry what the checks read off
// the holder; an erased result keeps each as {"status": "erased"}.
var erasedSections = []string{"photo_comparison", "liveness_detection", "document_authenticity",
	"sanctions_screening", "mrz_parsed", "address_verification"}

// keptKeys are the result keys an erasure keeps: the verdict, units,
// timings and identifiers, nothing read from the holder or sent by the
// caller.
var keptKeys = []string{"idv_unique_id", "client_id", "work_flow_id", "request_id", "status",
	"verification_decision", "decision_reasons", "flags", "config", "document_type", "country",
	"field_schema", "performance_metrics", "units_consumed"}

// eraseResult returns the stored result without personal data: combined
// and images emptied, the sections marked erased, the check results
// without their score pieces, and the caller's carried message keys
// (metadata included) dropped.
func eraseResult(now time.Time) func(json.RawMessage) (json.RawMessage, error) {
	return func(raw json.RawMessage) (json.RawMessage, error) {
		var in map[string]json.RawMessage
		if err := json.Unmarshal(raw, &in); err != nil {
			return nil, fmt.Errorf("server: stored result: %w", err)
		}
		out := map[string]any{}
		for _, k := range keptKeys {
			if v, ok := in[k]; ok {
				out[k] = v
			}
		}
		out["combined"] = map[string]string{}
		out["images"] = map[string]string{}
		for _, k := range erasedSections {
			if _, ok := in[k]; ok {
				out[k] = map[string]string{"status": "erased"}
			}
		}
		var checks []idv.CheckResult
		if err := json.Unmarshal(in["check_results"], &checks); err == nil {
			for i := range checks {
				checks[i].Pieces, checks[i].Error = []idv.ScorePiece{}, ""
			}
			out["check_results"] = checks
		}
		out["erased_at"] = now.UTC().Format(time.RFC3339)
		return json.Marshal(out)
	}
}

// ReviewCaseJSON is a case as the API and the CLI show it.
type ReviewCaseJSON struct {
	VerificationID    string   `json:"idv_unique_id"`
	WorkflowID        string   `json:"work_flow_id"`
	ClientID          string   `json:"client_id"`
	RequestID         string   `json:"request_id"`
	State             string   `json:"state"`
	AutomatedDecision string   `json:"automated_decision"`
	AutomatedReasons  []string `json:"automated_reasons"`
	Assignee          string   `json:"assignee"`
	Reason            string   `json:"reason,omitempty"`
	Note              string   `json:"note,omitempty"`
	Reviewer          string   `json:"reviewer,omitempty"`
	QueuedAt          string   `json:"queued_at"`
	DecidedAt         string   `json:"decided_at,omitempty"`
	// FirstDecision is the four-eyes rule's first decision: waiting for
	// a second reviewer while state is open, confirmed once decided.
	FirstDecision *FirstDecisionJSON `json:"first_decision,omitempty"`
	History       []ReviewActionJSON `json:"history,omitempty"`
}

// FirstDecisionJSON is a first decision under the four-eyes rule.
type FirstDecisionJSON struct {
	Decision  string `json:"decision"` // approve or reject
	Reason    string `json:"reason"`
	Note      string `json:"note,omitempty"`
	Reviewer  string `json:"reviewer"`
	DecidedAt string `json:"decided_at"`
}

// ReviewActionJSON is one history line as the API and the CLI show it.
type ReviewActionJSON struct {
	Action string `json:"action"`
	Actor  string `json:"actor"`
	Detail string `json:"detail,omitempty"`
	Note   string `json:"note,omitempty"`
	At     string `json:"at"`
}

// ReviewJSON returns the JSON form of a case (the API's and the CLI's).
func ReviewJSON(c ReviewCase) ReviewCaseJSON {
	j := ReviewCaseJSON{VerificationID: c.VerificationID, WorkflowID: c.WorkflowID, ClientID: c.ClientID, RequestID: c.RequestID,
		State: c.State, AutomatedDecision: c.AutomatedDecision, AutomatedReasons: c.AutomatedReasons, Assignee: c.Assignee,
		Reason: c.Reason, Note: c.Note, Reviewer: c.Reviewer, QueuedAt: c.CreatedAt.UTC().Format(time.RFC3339)}
	if j.AutomatedReasons == nil {
		j.AutomatedReasons = []string{}
	}
	if c.DecidedAt != nil {
		j.DecidedAt = c.DecidedAt.UTC().Format(time.RFC3339)
	}
	if f := c.First; f != nil {
		d := "reject"
		if f.Approve {
			d = "approve"
		}
		j.FirstDecision = &FirstDecisionJSON{Decision: d, Reason: f.Reason, Note: f.Note, Reviewer: f.Reviewer, DecidedAt: f.At.UTC().Format(time.RFC3339)}
	}
	for _, a := range c.History {
		j.History = append(j.History, ReviewActionJSON{Action: a.Action, Actor: a.Actor, Detail: a.Detail, Note: a.Note, At: a.CreatedAt.UTC().Format(time.RFC3339)})
	}
	return j
}

// Admin's review operations (the admin CLI). The store must have Reviews.

func (a *Admin) desk() (reviewDesk, error) {
	rv, ok := a.store.(Reviews)
	if !ok {
		return reviewDesk{}, errors.New("server: this store has no review queue")
	}
	return reviewDesk{st: a.store, rv: rv}, nil
}

// ListReviews lists an organisation's review cases.
func (a *Admin) ListReviews(ctx context.Context, orgID int64, f ReviewFilter) ([]ReviewCase, error) {
	d, err := a.desk()
	if err != nil {
		return nil, err
	}
	return d.rv.ListReviews(ctx, orgID, f)
}

// AssignReview assigns an open case to a reviewer (empty: nobody).
func (a *Admin) AssignReview(ctx context.Context, orgID int64, id, assignee, actor string) (ReviewCase, error) {
	d, err := a.desk()
	if err != nil {
		return ReviewCase{}, err
	}
	if assignee != "" && !validName(assignee) {
		return ReviewCase{}, idv.Errorf(idv.EInvalid, "assignee must be 1 to 254 characters on one line")
	}
	return d.rv.AssignReview(ctx, orgID, id, assignee, ReviewAction{Actor: actor})
}

// DecideReview approves or rejects an open case.
func (a *Admin) DecideReview(ctx context.Context, orgID int64, id string, in DecisionInput, actor string) (ReviewCase, error) {
	d, err := a.desk()
	if err != nil {
		return ReviewCase{}, err
	}
	return d.decide(ctx, orgID, id, in, actor, "")
}

// ReviewCase returns one case with its history.
func (a *Admin) ReviewCase(ctx context.Context, orgID int64, id string) (ReviewCase, error) {
	d, err := a.desk()
	if err != nil {
		return ReviewCase{}, err
	}
	return d.rv.ReviewCase(ctx, orgID, id)
}

// The HTTP side.

type orgHandler func(w http.ResponseWriter, r *http.Request, p *Principal) *APIError

// mountReviews registers the verification and review routes.
func (s *Server) mountReviews(rv Reviews) {
	d := reviewDesk{st: s.store, rv: rv}
	type route struct {
		method, path, name string
		h                  orgHandler
	}
	routes := []route{
		{"GET", "/v1/verifications/{id}", "verifications_show", func(w http.ResponseWriter, r *http.Request, p *Principal) *APIError {
			return s.showVerification(w, r, d, p)
		}},
		{"DELETE", "/v1/verifications/{id}", "verifications_erase", func(w http.ResponseWriter, r *http.Request, p *Principal) *APIError {
			return s.eraseVerification(w, r, d, p)
		}},
		{"GET", "/v1/reviews", "reviews_list", func(w http.ResponseWriter, r *http.Request, p *Principal) *APIError {
			return s.listReviews(w, r, d, p)
		}},
		{"POST", "/v1/verifications/{id}/review/assign", "reviews_assign", func(w http.ResponseWriter, r *http.Request, p *Principal) *APIError {
			return s.assignReview(w, r, d, p)
		}},
		{"POST", "/v1/verifications/{id}/review/decision", "reviews_decide", func(w http.ResponseWriter, r *http.Request, p *Principal) *APIError {
			return s.decideReview(w, r, d, p)
		}},
	}
	api := make([]apiRoute, len(routes))
	for i, rt := range routes {
		api[i] = apiRoute{rt.method, rt.path, rt.name, s.withClient(rt.h)}
	}
	if au, ok := s.store.(Audit); ok {
		api = append(api, s.auditRoutes(au)...)
	}
	s.mountAPI(api)
}

// withClient authenticates a client's own token (workflow-scoped SDK
// tokens are refused: they are low-trust by design) and hides internal
// errors.
func (s *Server) withClient(h orgHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p, aerr := s.authenticate(r)
		if aerr == nil && p.WorkflowID != "" {
			aerr = apiErr(CodeForbidden, "a workflow-scoped token cannot read or change verifications; use the client's access token")
		}
		if aerr == nil {
			aerr = h(w, r, p)
		}
		if aerr != nil {
			if aerr.Code == CodeInternal {
				s.log.ErrorContext(r.Context(), "review api", "request_id", requestIDFrom(r.Context()), "error", aerr.Message)
				aerr = apiErr(CodeInternal, "internal error")
			}
			writeAPIError(w, aerr, requestIDFrom(r.Context()))
		}
	}
}

// reviewErr maps review errors to API errors.
func reviewErr(err error) *APIError {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrNotFound):
		return apiErr(CodeNotFound, "no such verification")
	case errors.Is(err, ErrNotInReview):
		return apiErr(CodeRequestConflict, "this verification is not in review: its automated verdict was final")
	case errors.Is(err, ErrDecided):
		return apiErr(CodeRequestConflict, "this case is already decided (%s)", strings.TrimPrefix(err.Error(), ErrDecided.Error()+": "))
	case errors.Is(err, ErrChanged), errors.Is(err, ErrSameReviewer):
		return apiErr(CodeRequestConflict, "%s", ReviewMessage(err))
	case idv.ErrorCode(err) == idv.EInvalid:
		return apiErr(CodeInvalidRequest, "%s", strings.TrimPrefix(err.Error(), "idv: "))
	}
	return apiErr(CodeInternal, "%v", err)
}

// ReviewMessage is a review error without its package prefix: what a
// reviewer reads.
func ReviewMessage(err error) string {
	msg := err.Error()
	for _, e := range []error{ErrChanged, ErrSameReviewer} {
		if errors.Is(err, e) {
			if rest, ok := strings.CutPrefix(msg, e.Error()+": "); ok {
				return rest
			}
			if e == ErrSameReviewer {
				return "a second, different reviewer must make this decision (four-eyes rule)"
			}
			return "the case changed while you were deciding; reload it"
		}
	}
	return strings.TrimPrefix(msg, "idv: ")
}

// validVerificationID refuses path values that cannot be an idv_unique_id
// before they reach the store.
func validVerificationID(id string) *APIError {
	if !validID(id, 128) {
		return apiErr(CodeNotFound, "no such verification")
	}
	return nil
}

func apiActor(p *Principal, person string) string {
	if person == "" {
		return "client:" + p.ClientID
	}
	return person + " (client:" + p.ClientID + ")"
}

// verificationView is the stored result with fresh file URLs, the current
// verdict in verification_decision, and, when it went to review,
// automated_decision and the review object with its history; erased_at
// once erased. The result's own keys keep their order.
func (s *Server) verificationView(v Verification, c *ReviewCase) ([]byte, error) {
	out := bytes.TrimSpace([]byte(v.Result))
	for url, key := range v.Files {
		out = bytes.ReplaceAll(out, []byte(url), []byte(s.FileURL(key)))
	}
	if len(out) < 2 || out[0] != '{' || out[len(out)-1] != '}' {
		return nil, fmt.Errorf("server: stored result of %s is not an object", v.ID)
	}
	var automated struct {
		Decision string `json:"verification_decision"`
	}
	if err := json.Unmarshal(out, &automated); err != nil {
		return nil, err
	}
	extra := map[string]any{}
	if automated.Decision != v.Decision {
		// The key comes early in a result, before any caller's key, so
		// its first occurrence is the top-level one.
		old, _ := json.Marshal(automated.Decision)
		cur, _ := json.Marshal(v.Decision)
		out = bytes.Replace(out, append([]byte(`"verification_decision":`), old...), append([]byte(`"verification_decision":`), cur...), 1)
	}
	if c != nil {
		extra["automated_decision"] = c.AutomatedDecision
		extra["review"] = ReviewJSON(*c)
	}
	if v.ErasedAt != nil {
		extra["erased_at"] = v.ErasedAt.UTC().Format(time.RFC3339)
	}
	if len(extra) == 0 {
		return out, nil
	}
	more, err := json.Marshal(extra)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Write(out[:len(out)-1])
	if len(bytes.TrimSpace(out[1:len(out)-1])) > 0 {
		b.WriteByte(',')
	}
	b.Write(more[1:])
	return b.Bytes(), nil
}

func (s *Server) loadView(ctx context.Context, d reviewDesk, org int64, id string) ([]byte, *APIError) {
	v, err := d.rv.StoredVerification(ctx, org, id)
	if err != nil {
		return nil, reviewErr(err)
	}
	var cp *ReviewCase
	c, err := d.rv.ReviewCase(ctx, org, id)
	switch {
	case err == nil:
		cp = &c
	case !errors.Is(err, ErrNotInReview):
		return nil, reviewErr(err)
	}
	body, err := s.verificationView(v, cp)
	if err != nil {
		return nil, apiErr(CodeInternal, "%v", err)
	}
	return body, nil
}

func (s *Server) showVerification(w http.ResponseWriter, r *http.Request, d reviewDesk, p *Principal) *APIError {
	id := r.PathValue("id")
	if aerr := validVerificationID(id); aerr != nil {
		return aerr
	}
	body, aerr := s.loadView(r.Context(), d, p.OrganisationID, id)
	if aerr != nil {
		return aerr
	}
	writeRawJSON(w, http.StatusOK, body)
	return nil
}

// eraseVerification is DELETE /v1/verifications/{id}: the stored result
// loses its personal fields and the files go, now. Repeating it answers
// the same and removes any file a failed first attempt left.
func (s *Server) eraseVerification(w http.ResponseWriter, r *http.Request, d reviewDesk, p *Principal) *APIError {
	id := r.PathValue("id")
	if aerr := validVerificationID(id); aerr != nil {
		return aerr
	}
	ctx := r.Context()
	if err := s.erase(ctx, d.rv, p.OrganisationID, id, ReviewAction{Actor: apiActor(p, ""), Address: s.callerAddr(r)}); err != nil {
		return reviewErr(err)
	}
	body, aerr := s.loadView(ctx, d, p.OrganisationID, id)
	if aerr != nil {
		return aerr
	}
	writeRawJSON(w, http.StatusOK, body)
	return nil
}

// erase erases one verification: the record first (one transaction),
// then its files and its folder (derived images a crash left unnamed).
// Repeating it removes whatever a failed earlier attempt left.
func (s *Server) erase(ctx context.Context, rv Reviews, org int64, id string, a ReviewAction) error {
	keys, _, err := rv.EraseVerification(ctx, org, id, eraseResult(s.cfg.Now()), a)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := s.files.Delete(ctx, k); err != nil {
			return fmt.Errorf("server: erasing files: %w", err)
		}
	}
	if fs, ok := s.files.(FileSweeper); ok {
		if err := fs.RemoveAll(ctx, "v/"+id); err != nil {
			return fmt.Errorf("server: erasing files: %w", err)
		}
	}
	return nil
}

func (s *Server) listReviews(w http.ResponseWriter, r *http.Request, d reviewDesk, p *Principal) *APIError {
	q := r.URL.Query()
	f := ReviewFilter{State: q.Get("state"), WorkflowID: q.Get("work_flow_id"), Assignee: q.Get("assignee"), Reason: q.Get("reason")}
	switch f.State {
	case "", "all", store.ReviewOpen, store.ReviewApproved, store.ReviewRejected:
	default:
		return apiErr(CodeInvalidRequest, "state must be open, approved, rejected or all")
	}
	if (f.WorkflowID != "" && !validID(f.WorkflowID, 64)) || (f.Assignee != "" && !validName(f.Assignee)) || (f.Reason != "" && !validID(f.Reason, 64)) {
		return apiErr(CodeInvalidRequest, "work_flow_id, assignee and reason must be identifiers")
	}
	switch q.Get("sort") {
	case "", "oldest":
	case "newest":
		f.NewestFirst = true
	default:
		return apiErr(CodeInvalidRequest, "sort must be oldest or newest")
	}
	if v := q.Get("offset"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 1_000_000 {
			return apiErr(CodeInvalidRequest, "offset must be 0 to 1000000")
		}
		f.Offset = n
	}
	if v := q.Get("older_than"); v != "" {
		dur, err := time.ParseDuration(v)
		if err != nil || dur < 0 {
			return apiErr(CodeInvalidRequest, "older_than must be a duration such as 24h")
		}
		f.OlderThan = dur
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			return apiErr(CodeInvalidRequest, "limit must be 1 to 1000")
		}
		f.Limit = n
	}
	cases, err := d.rv.ListReviews(r.Context(), p.OrganisationID, f)
	if err != nil {
		return reviewErr(err)
	}
	open, oldest, err := d.rv.CountReviews(r.Context(), p.OrganisationID)
	if err != nil {
		return reviewErr(err)
	}
	list := make([]any, 0, len(cases))
	for _, c := range cases {
		list = append(list, ReviewJSON(c))
	}
	age := int64(0)
	if !oldest.IsZero() {
		age = int64(s.cfg.Now().Sub(oldest).Seconds())
	}
	writeJSON(w, http.StatusOK, map[string]any{"reviews": list, "open": open, "oldest_open_age_seconds": age})
	return nil
}

// readJSON decodes a small JSON body strictly.
func readJSON(r *http.Request, v any) *APIError {
	dec := json.NewDecoder(http.MaxBytesReader(nil, r.Body, 16<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return apiErr(CodeInvalidRequest, "the body must be a JSON object with the documented fields: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

func (s *Server) assignReview(w http.ResponseWriter, r *http.Request, d reviewDesk, p *Principal) *APIError {
	id := r.PathValue("id")
	if aerr := validVerificationID(id); aerr != nil {
		return aerr
	}
	var in struct {
		Assignee string `json:"assignee"`
		Reviewer string `json:"reviewer"`
	}
	if aerr := readJSON(r, &in); aerr != nil {
		return aerr
	}
	if in.Assignee != "" && !validName(in.Assignee) || in.Reviewer != "" && !validName(in.Reviewer) {
		return apiErr(CodeInvalidRequest, "assignee and reviewer must be 1 to 254 characters on one line")
	}
	c, err := d.rv.AssignReview(r.Context(), p.OrganisationID, id, in.Assignee, ReviewAction{Actor: apiActor(p, in.Reviewer), Address: s.callerAddr(r)})
	if err != nil {
		return reviewErr(err)
	}
	writeJSON(w, http.StatusOK, ReviewJSON(c))
	return nil
}

func (s *Server) decideReview(w http.ResponseWriter, r *http.Request, d reviewDesk, p *Principal) *APIError {
	id := r.PathValue("id")
	if aerr := validVerificationID(id); aerr != nil {
		return aerr
	}
	var in DecisionInput
	if aerr := readJSON(r, &in); aerr != nil {
		return aerr
	}
	c, err := d.decide(r.Context(), p.OrganisationID, id, in, apiActor(p, in.Reviewer), s.callerAddr(r))
	if err != nil {
		return reviewErr(err)
	}
	c, err = d.rv.ReviewCase(r.Context(), p.OrganisationID, id)
	if err != nil {
		return reviewErr(err)
	}
	writeJSON(w, http.StatusOK, ReviewJSON(c))
	return nil
}
