package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tambua/tambua/checks/address/pdf"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/server/store"
)

// The reviewer's pages of the console (issue 19, docs/reviews.md): the
// queue, a case with its images and evidence, assignment, decisions under
// the four-eyes rule, the audit log and erasure. Every action goes
// through reviewDesk, the code the API and the CLI use.

// queuePage is how many cases one queue page lists.
const queuePage = 50

// reviewPages registers the pages when the store has the review queue.
func (c *console) mountReviewPages(reg func(method, path string, p perm, h pageHandler)) {
	rv, ok := c.s.store.(Reviews)
	if !ok {
		return
	}
	rp := &reviewPages{c: c, d: reviewDesk{st: c.s.store, rv: rv}, previews: make(chan struct{}, maxPreviews), canPreview: pdf.Renderable()}
	reg("GET", "/console/reviews", permReview, rp.queue)
	reg("GET", "/console/reviews/{id}", permReview, rp.casePage)
	reg("GET", "/console/reviews/{id}/images/{name}", permReview, rp.image)
	reg("GET", "/console/reviews/{id}/images/{name}/page1.png", permReview, rp.pdfPreview)
	reg("POST", "/console/reviews/{id}/assign", permReview, rp.assign)
	reg("POST", "/console/reviews/{id}/decision", permReview, rp.decision)
	reg("GET", "/console/verifications/{id}/erase", permAdmin, rp.eraseConfirm)
	reg("POST", "/console/verifications/{id}/erase", permAdmin, rp.erase)
	if au, ok := c.s.store.(Audit); ok {
		rp.au = au
		reg("GET", "/console/audit", permAdmin, rp.auditPage)
		reg("GET", "/console/audit.csv", permAdmin, rp.auditCSV)
	}
}

type reviewPages struct {
	c  *console
	d  reviewDesk
	au Audit
	// previews holds a slot per PDF page being drawn (maxPreviews).
	previews chan struct{}
	// canPreview: poppler's pdftoppm is installed, so a PDF part shows
	// its first page; without it the page offers the PDF alone.
	canPreview bool
}

// maxPreviews bounds the PDF pages drawn at once, so reviewers opening
// cases cannot take the CPU the verifications need.
const maxPreviews = 2

// previewSide is the longer side of a drawn PDF page: an A4 page at about
// 120 dpi, small print legible once zoomed.
const previewSide = 1400

// reviewerName is who a console member is in a case's history, its
// assignee and the events: their email, which is unique.
func reviewerName(m *member) string { return m.user.Email }

// consoleActor is the actor of a console member's review actions in the
// history and the audit log.
func consoleActor(m *member) string { return m.user.Email + " (console)" }

// pageReviewErr turns a review error into the page's error; nil stays nil.
func pageReviewErr(err error) error {
	if err == nil {
		return nil
	}
	if ae := reviewErr(err); ae.Code != CodeInternal {
		return ae
	}
	return err
}

// ageText is a queue age as a reviewer reads it: 12 min, 5 h, 3 d 4 h.
func ageText(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "under a minute"
	case d < time.Hour:
		return strconv.Itoa(int(d.Minutes())) + " min"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d.Hours())) + " h"
	}
	days := int(d.Hours()) / 24
	if h := int(d.Hours()) % 24; h > 0 {
		return fmt.Sprintf("%d d %d h", days, h)
	}
	return strconv.Itoa(days) + " d"
}

// ---- the queue ----

// QueueSummary is the queue's line on the overview page.
type QueueSummary struct {
	Open      int64
	OldestAge string
}

// queueSummary counts the open cases for the overview; nil when the store
// has no queue or the member cannot review.
func (c *console) queueSummary(ctx context.Context, m *member) *QueueSummary {
	rv, ok := c.s.store.(Reviews)
	if !ok || !roleAllows(m.user.Role, permReview) {
		return nil
	}
	n, oldest, err := rv.CountReviews(ctx, m.org())
	if err != nil {
		return nil
	}
	q := &QueueSummary{Open: n, OldestAge: "–"}
	if !oldest.IsZero() {
		q.OldestAge = ageText(c.s.cfg.Now().Sub(oldest))
	}
	return q
}

type queueRow struct {
	ID, ShortID, Workflow, Age, Assignee, State string
	Reasons                                     []string
	Waiting                                     *FirstDecision
	Mine                                        bool
}

// FirstDecision is store.FirstDecision for the templates.
type FirstDecision = store.FirstDecision

type queueData struct {
	Rows       []queueRow
	Open       int64
	OldestAge  string
	F          map[string]string
	Workflows  []WorkflowView
	Reviewers  []Member
	Reasons    []string
	States     []string
	Ages       [][2]string
	Page       int
	Prev, Next string
	Query      string
	Me         string
	ShownFrom  int
	ShownTo    int
}

// queueAges are the age filter's choices.
var queueAges = [][2]string{{"", "Any age"}, {"1h", "Over 1 hour"}, {"24h", "Over 24 hours"}, {"72h", "Over 3 days"}, {"168h", "Over 7 days"}}

// knownReasons are the automated decision reasons the filter suggests
// (the spec's values seen and the engine's); any code can be typed.
var knownReasons = []string{"face_low_confidence", "face_no_match", "no_face_in_selfie", "multiple_faces_in_selfie",
	"liveness_low_confidence", "doc_confidence_below_review_band", "doc_not_authentic", "doc_expired", "doc_front_unreadable",
	"doc_mrz_unreadable"}

// queueFilter reads the queue page's query.
func queueFilter(q url.Values, me string) (ReviewFilter, map[string]string, error) {
	fm := map[string]string{}
	for _, k := range []string{"workflow", "reason", "age", "assignee", "sort", "state", "page"} {
		fm[k] = strings.TrimSpace(q.Get(k))
	}
	f := ReviewFilter{State: fm["state"], WorkflowID: fm["workflow"], Reason: fm["reason"], Limit: queuePage, NewestFirst: fm["sort"] == "newest"}
	switch f.State {
	case "", store.ReviewOpen:
		f.State = ""
	case store.ReviewApproved, store.ReviewRejected, "all":
	default:
		return f, fm, idv.Errorf(idv.EInvalid, "state must be open, approved, rejected or all")
	}
	if (f.WorkflowID != "" && !validID(f.WorkflowID, 64)) || (f.Reason != "" && !validID(f.Reason, 64)) {
		return f, fm, idv.Errorf(idv.EInvalid, "workflow and reason must be identifiers")
	}
	switch fm["assignee"] {
	case "":
	case "me":
		f.Assignee = me
	case "none":
		f.Assignee = "-"
	default:
		if !validName(fm["assignee"]) {
			return f, fm, idv.Errorf(idv.EInvalid, "assignee must be a reviewer's email")
		}
		f.Assignee = fm["assignee"]
	}
	if a := fm["age"]; a != "" {
		d, err := time.ParseDuration(a)
		if err != nil || d < 0 {
			return f, fm, idv.Errorf(idv.EInvalid, "age must be a duration such as 24h")
		}
		f.OlderThan = d
	}
	if p := fm["page"]; p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 20000 {
			return f, fm, idv.Errorf(idv.EInvalid, "page must be a positive number")
		}
		f.Offset = (n - 1) * queuePage
	}
	return f, fm, nil
}

func (rp *reviewPages) queue(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	ctx := r.Context()
	v := view{Title: "Review queue", Nav: "review_queue"}
	f, fm, ferr := queueFilter(r.URL.Query(), reviewerName(m))
	d := &queueData{F: fm, Reasons: knownReasons, States: []string{"open", "approved", "rejected", "all"}, Ages: queueAges, Me: reviewerName(m), Page: f.Offset/queuePage + 1}
	v.D = d
	wfs, err := rp.c.listWorkflows(ctx, m)
	if err != nil {
		return v, "", err
	}
	d.Workflows = wfs
	names := map[string]string{}
	for _, w := range wfs {
		names[w.ID] = w.Definition.Name
	}
	us, err := rp.c.st.ListUsers(ctx, m.org())
	if err != nil {
		return v, "", err
	}
	for _, u := range us {
		if roleAllows(u.Role, permReview) && u.PasswordHash != "" {
			d.Reviewers = append(d.Reviewers, memberOf(u))
		}
	}
	open, oldest, err := rp.d.rv.CountReviews(ctx, m.org())
	if err != nil {
		return v, "", err
	}
	now := rp.c.s.cfg.Now()
	d.Open, d.OldestAge = open, "–"
	if !oldest.IsZero() {
		d.OldestAge = ageText(now.Sub(oldest))
	}
	if ferr != nil {
		return v, "", ferr
	}
	cases, err := rp.d.rv.ListReviews(ctx, m.org(), f)
	if err != nil {
		return v, "", err
	}
	for _, rc := range cases {
		row := queueRow{ID: rc.VerificationID, ShortID: shortID(rc.VerificationID), Workflow: names[rc.WorkflowID], Age: ageText(now.Sub(rc.CreatedAt)),
			Assignee: rc.Assignee, State: rc.State, Reasons: rc.AutomatedReasons, Mine: rc.Assignee == reviewerName(m)}
		if row.Workflow == "" {
			row.Workflow = rc.WorkflowID
		}
		if rc.State == store.ReviewOpen {
			row.Waiting = rc.First
		}
		d.Rows = append(d.Rows, row)
	}
	qs := url.Values{}
	for k, val := range fm {
		if val != "" && k != "page" {
			qs.Set(k, val)
		}
	}
	d.Query = qs.Encode()
	d.ShownFrom, d.ShownTo = f.Offset+1, f.Offset+len(cases)
	if d.Page > 1 {
		qs.Set("page", strconv.Itoa(d.Page-1))
		d.Prev = "/console/reviews?" + qs.Encode()
	}
	if len(cases) == queuePage {
		qs.Set("page", strconv.Itoa(d.Page+1))
		d.Next = "/console/reviews?" + qs.Encode()
	}
	return v, "", nil
}

// shortID is the start of an idv_unique_id, enough to tell cases apart.
func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// ---- one case ----

type caseData struct {
	Case       ReviewCaseJSON
	Open       bool
	Waiting    *FirstDecisionJSON // a first decision waiting for a second reviewer
	WaitingMe  bool               // the member made it
	FourEyes   string             // the workflow's rule, as a sentence
	Workflow   string
	Age        string
	Result     *testResult
	Captures   []caseImage
	Derived    []caseImage
	Documents  []caseDoc
	Sections   []caseSection
	Request    [][2]string
	Metadata   string
	Erased     string
	Reasons    []reasonChoice
	Reviewers  []Member
	Me         string
	CanErase   bool
	ReasonText map[string]string
}

type caseImage struct{ Name, Label, URL string }

// caseDoc is a part the request carried besides the ID and the selfie (a
// proof of address). An image zooms as the captures do. A PDF is not an
// image: it opens in the browser's PDF viewer in a new tab, and its first
// page is drawn as a zoomable preview where poppler is installed. It is
// not embedded in the page: a frame would need the console's
// frame-ancestors 'none' relaxed on the PDF's response.
type caseDoc struct {
	Name, Label, URL string
	PDF              bool
	Preview          string // the first page as PNG, "" without poppler
}

// partLabel is a slot name as a reviewer reads it: proof_of_address is
// "Proof of address".
func partLabel(slot string) string {
	s := strings.NewReplacer("_", " ", "-", " ").Replace(slot)
	return strings.ToUpper(s[:1]) + s[1:]
}

type caseSection struct {
	Name   string
	Status string
	Rows   [][2]string
}

type reasonChoice struct{ Code, Label string }

// reasonLabels say what each reason code means (docs/reviews.md).
var reasonLabels = map[string]string{
	"document_fraudulent": "Document fraudulent (forged or altered)", "face_mismatch": "Face mismatch (selfie is not the holder)",
	"document_expired": "Document expired", "poor_quality": "Poor quality (captures cannot support a decision)",
	"sanctions_match_confirmed": "Sanctions match confirmed", "other": "Other (say what in the note)",
}

// fourEyesText says what a workflow's four-eyes rule asks.
func fourEyesText(rule string) string {
	switch rule {
	case idv.FourEyesRejections:
		return "Four-eyes rule: a rejection needs a second, different reviewer."
	case idv.FourEyesAll:
		return "Four-eyes rule: every decision needs a second, different reviewer."
	}
	return ""
}

// imageOrder is how the case page lays out the images: the captures as
// sent, then what the checks derived from them.
var imageOrder = []struct{ name, label string }{
	{"front", "ID front (capture)"}, {"back", "ID back (capture)"}, {"selfie", "Selfie (capture)"},
	{"front_rectified", "Front, rectified"}, {"back_rectified", "Back, rectified"}, {"id_photo", "ID photo"},
	{"id_face", "Face on the ID"}, {"selfie_face", "Face in the selfie"},
}

// fileName is the image name of a stored key: v/{id}/front.jpg is front.
func fileName(key string) string {
	b := path.Base(key)
	return strings.TrimSuffix(b, path.Ext(b))
}

func (rp *reviewPages) loadCase(ctx context.Context, m *member, id string) (*caseData, error) {
	if !validID(id, 128) {
		return nil, apiErr(CodeNotFound, "no such verification")
	}
	rc, err := rp.d.rv.ReviewCase(ctx, m.org(), id)
	if err != nil {
		return nil, pageReviewErr(err)
	}
	v, err := rp.d.rv.StoredVerification(ctx, m.org(), id)
	if err != nil {
		return nil, pageReviewErr(err)
	}
	now := rp.c.s.cfg.Now()
	cd := &caseData{Case: ReviewJSON(rc), Open: rc.State == store.ReviewOpen, Age: ageText(now.Sub(rc.CreatedAt)), Me: reviewerName(m),
		CanErase: roleAllows(m.user.Role, permAdmin), ReasonText: reasonLabels}
	if cd.Open && cd.Case.FirstDecision != nil {
		cd.Waiting = cd.Case.FirstDecision
		cd.WaitingMe = strings.EqualFold(rc.First.Reviewer, reviewerName(m))
	}
	if wf, err := rp.c.s.store.Workflow(ctx, rc.WorkflowID); err == nil {
		cd.Workflow = wf.Definition.Name
		cd.FourEyes = fourEyesText(wf.Definition.Review().FourEyes)
	}
	for _, code := range ReviewReasons {
		cd.Reasons = append(cd.Reasons, reasonChoice{code, reasonLabels[code]})
	}
	if us, err := rp.c.st.ListUsers(ctx, m.org()); err == nil {
		for _, u := range us {
			if roleAllows(u.Role, permReview) && u.PasswordHash != "" {
				cd.Reviewers = append(cd.Reviewers, memberOf(u))
			}
		}
	}
	if v.ErasedAt != nil {
		cd.Erased = v.ErasedAt.UTC().Format("2006-01-02 15:04 UTC")
	}
	if cd.Result, err = readTestResult(v.Result, 0); err != nil {
		return nil, fmt.Errorf("server: stored result of %s: %w", id, err)
	}
	// Images come through the console (session and organisation
	// checked), not as signed URLs that work for whoever holds them.
	have, known := map[string]bool{}, map[string]bool{}
	for _, key := range v.Files {
		have[fileName(key)] = true
	}
	for _, im := range imageOrder {
		known[im.name] = true
	}
	for i, im := range imageOrder {
		if !have[im.name] {
			continue
		}
		ci := caseImage{Name: im.name, Label: im.label, URL: "/console/reviews/" + id + "/images/" + im.name}
		if i < 3 {
			cd.Captures = append(cd.Captures, ci)
		} else {
			cd.Derived = append(cd.Derived, ci)
		}
	}
	// Every other stored file is a part the caller sent in a slot of
	// its own (the derived images all have names above).
	for _, key := range v.Files {
		name := fileName(key)
		if known[name] || !validSlot(name) {
			continue
		}
		d := caseDoc{Name: name, Label: partLabel(name), URL: "/console/reviews/" + id + "/images/" + name, PDF: path.Ext(key) == ".pdf"}
		if d.PDF && rp.canPreview {
			d.Preview = d.URL + "/page1.png"
		}
		cd.Documents = append(cd.Documents, d)
	}
	sort.Slice(cd.Documents, func(i, j int) bool { return cd.Documents[i].Name < cd.Documents[j].Name })
	cd.Sections, cd.Request, cd.Metadata = resultDetails(v)
	return cd, nil
}

// detailSections are the result sections whose evidence the case page
// lays out, in the result's order.
var detailSections = []string{"photo_comparison", "liveness_detection", "document_authenticity", "sanctions_screening",
	"mrz_parsed", "address_verification"}

// resultDetails lays out the sections' evidence (each scalar as a path
// and value), the request's metadata and the caller's carried metadata.
func resultDetails(v Verification) ([]caseSection, [][2]string, string) {
	var raw map[string]json.RawMessage
	if json.Unmarshal(v.Result, &raw) != nil {
		return nil, nil, ""
	}
	var out []caseSection
	for _, name := range detailSections {
		body, ok := raw[name]
		if !ok {
			continue
		}
		var val any
		if json.Unmarshal(body, &val) != nil {
			continue
		}
		sec := caseSection{Name: name}
		if obj, ok := val.(map[string]any); ok {
			if s, ok := obj["status"].(string); ok {
				sec.Status = s
				if s == string(idv.StatusNotRequested) {
					continue
				}
			}
		}
		flatten("", val, &sec.Rows)
		out = append(out, sec)
	}
	str := func(k string) string {
		var s string
		if json.Unmarshal(raw[k], &s) == nil {
			return s
		}
		return strings.Trim(string(raw[k]), `"`)
	}
	req := [][2]string{{"idv_unique_id", v.ID}, {"request_id", v.RequestID}, {"client_id", v.ClientID}, {"work_flow_id", v.WorkflowID},
		{"config", str("config")}, {"document_type", str("document_type")}, {"country", str("country")},
		{"units_consumed", strconv.FormatInt(v.Units, 10)}, {"started", v.CreatedAt.UTC().Format("2006-01-02 15:04:05 UTC")},
		{"completed", v.CompletedAt.UTC().Format("2006-01-02 15:04:05 UTC")}}
	var pm struct {
		Total int64 `json:"total_duration_ms"`
	}
	if json.Unmarshal(raw["performance_metrics"], &pm) == nil && pm.Total > 0 {
		req = append(req, [2]string{"processing_time", strconv.FormatInt(pm.Total, 10) + " ms"})
	}
	md := ""
	if m, ok := raw["metadata"]; ok {
		var b bytes.Buffer
		if json.Indent(&b, m, "", "  ") == nil {
			md = b.String()
		}
	}
	return out, req, md
}

// maxEvidenceRows bounds one section's rows: a sanctions section with
// many candidates stays readable (the full JSON is a click away).
const maxEvidenceRows = 60

// flatten lists the scalars of a decoded JSON value with their paths.
func flatten(prefix string, v any, rows *[][2]string) {
	if len(*rows) >= maxEvidenceRows {
		return
	}
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			flatten(p, t[k], rows)
		}
	case []any:
		if len(t) == 0 {
			*rows = append(*rows, [2]string{prefix, "none"})
		}
		for i, e := range t {
			flatten(prefix+"["+strconv.Itoa(i)+"]", e, rows)
		}
	case float64:
		*rows = append(*rows, [2]string{prefix, strconv.FormatFloat(t, 'f', -1, 64)})
	case nil:
		*rows = append(*rows, [2]string{prefix, "–"})
	default:
		*rows = append(*rows, [2]string{prefix, fmt.Sprint(t)})
	}
}

func (rp *reviewPages) caseView(r *http.Request, m *member) (view, error) {
	v := view{Title: "Review case", Nav: "review_case"}
	cd, err := rp.loadCase(r.Context(), m, r.PathValue("id"))
	if err != nil {
		return view{}, err
	}
	v.Title = "Case " + shortID(cd.Case.VerificationID)
	v.D = cd
	return v, nil
}

func (rp *reviewPages) casePage(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	v, err := rp.caseView(r, m)
	return v, "", err
}

// caseFile finds the stored key of a case's file by its name, for a
// member of the case's organisation only: another organisation's case,
// like an unknown one, is "no such image".
func (rp *reviewPages) caseFile(r *http.Request, m *member) (string, error) {
	id, name := r.PathValue("id"), r.PathValue("name")
	if !validID(id, 128) || !validID(name, 64) {
		return "", apiErr(CodeNotFound, "no such image")
	}
	v, err := rp.d.rv.StoredVerification(r.Context(), m.org(), id)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return "", apiErr(CodeNotFound, "no such image")
		}
		return "", err
	}
	for _, k := range v.Files {
		if fileName(k) == name {
			return k, nil
		}
	}
	return "", apiErr(CodeNotFound, "no such image")
}

// openCaseFile opens a case's file found by caseFile.
func (rp *reviewPages) openCaseFile(r *http.Request, m *member) (string, io.ReadSeekCloser, time.Time, error) {
	key, err := rp.caseFile(r, m)
	if err != nil {
		return "", nil, time.Time{}, err
	}
	f, mod, err := rp.c.s.files.Open(r.Context(), key)
	if errors.Is(err, ErrNotFound) {
		return "", nil, time.Time{}, apiErr(CodeNotFound, "no such image")
	}
	return key, f, mod, err
}

// image streams one of a case's files to a member of its organisation: an
// image, or a PDF part shown inline (the browser's PDF viewer opens it in
// the tab the case page's link opened), never as a download of unknown
// type.
func (rp *reviewPages) image(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	key, f, mod, err := rp.openCaseFile(r, m)
	if err != nil {
		return view{}, "", err
	}
	defer f.Close()
	ct := "application/octet-stream"
	switch path.Ext(key) {
	case ".jpg":
		ct = "image/jpeg"
	case ".png":
		ct = "image/png"
	case ".webp":
		ct = "image/webp"
	case ".pdf":
		ct = "application/pdf"
		// The name is a slot name (letters, digits, _ and -): nothing
		// to escape.
		w.Header().Set("Content-Disposition", `inline; filename="`+fileName(key)+`.pdf"`)
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Cache-Control", "private, no-store")
	http.ServeContent(w, r, "", mod, f)
	return view{}, "", errWritten
}

// pdfPreview draws the first page of a case's PDF part as a PNG, after the
// same organisation check as image. The PDF passed pdf.Check when it was
// uploaded; drawing it runs pdftoppm bounded in time and memory, at most
// maxPreviews at once.
func (rp *reviewPages) pdfPreview(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	key, f, _, err := rp.openCaseFile(r, m)
	if err != nil {
		return view{}, "", err
	}
	defer f.Close()
	if path.Ext(key) != ".pdf" || !rp.canPreview {
		return view{}, "", apiErr(CodeNotFound, "no such image")
	}
	data, err := io.ReadAll(io.LimitReader(f, int64(pdf.DefaultLimits.Bytes)+1))
	if err != nil {
		return view{}, "", err
	}
	select {
	case rp.previews <- struct{}{}:
	case <-r.Context().Done():
		return view{}, "", r.Context().Err()
	}
	page, err := pdf.FirstPage(r.Context(), pdf.DefaultLimits, data, previewSide)
	<-rp.previews
	if err != nil {
		rp.c.s.log.WarnContext(r.Context(), "drawing a PDF's first page failed", "request_id", requestIDFrom(r.Context()), "error", err)
		return view{}, "", apiErr(CodeUnreadableImage, "the PDF's first page could not be drawn: open the PDF itself")
	}
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Cache-Control", "private, no-store")
	_, _ = w.Write(page)
	return view{}, "", errWritten
}

// caseError shows an action's refusal on the case page it came from.
func (rp *reviewPages) caseError(r *http.Request, m *member, err error) (view, string, error) {
	v, lerr := rp.caseView(r, m)
	if lerr != nil {
		return view{}, "", lerr
	}
	return v, "", err
}

func (rp *reviewPages) assign(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	id := r.PathValue("id")
	if !validID(id, 128) {
		return view{}, "", apiErr(CodeNotFound, "no such verification")
	}
	assignee := strings.TrimSpace(r.PostForm.Get("assignee"))
	if assignee == "me" {
		assignee = reviewerName(m)
	}
	if assignee != "" {
		// Only a reviewer of this organisation can be given a case.
		u, err := rp.c.st.UserByEmail(r.Context(), NormaliseEmail(assignee))
		if err != nil || u.OrganisationID != m.org() || !roleAllows(u.Role, permReview) {
			return rp.caseError(r, m, idv.Errorf(idv.EInvalid, "assign the case to a reviewer or admin of your organisation"))
		}
		assignee = u.Email
	}
	if _, err := rp.d.rv.AssignReview(r.Context(), m.org(), id, assignee, ReviewAction{Actor: consoleActor(m), Address: rp.c.s.callerAddr(r)}); err != nil {
		if errors.Is(err, ErrNotFound) {
			return view{}, "", pageReviewErr(err)
		}
		return rp.caseError(r, m, pageReviewErr(err))
	}
	return view{}, "/console/reviews/" + id + "?notice=assigned", nil
}

func (rp *reviewPages) decision(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	id := r.PathValue("id")
	if !validID(id, 128) {
		return view{}, "", apiErr(CodeNotFound, "no such verification")
	}
	f := r.PostForm
	in := DecisionInput{Decision: f.Get("decision"), Reason: f.Get("reason"), Note: strings.TrimSpace(f.Get("note")), Reviewer: reviewerName(m)}
	c, err := rp.d.decide(r.Context(), m.org(), id, in, consoleActor(m), rp.c.s.callerAddr(r))
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return view{}, "", pageReviewErr(err)
		}
		v, lerr := rp.caseView(r, m)
		if lerr != nil {
			return view{}, "", lerr
		}
		// Keep what the reviewer wrote: a lost note is retyped by hand.
		v.D.(*caseData).Case.Note = in.Note
		return v, "", pageReviewErr(err)
	}
	notice := "decided"
	if c.State == store.ReviewOpen {
		notice = "first_decision"
	}
	return view{}, "/console/reviews/" + id + "?notice=" + notice, nil
}

// ---- erasure ----

func (rp *reviewPages) eraseView(r *http.Request, m *member) (view, error) {
	id := r.PathValue("id")
	if !validID(id, 128) {
		return view{}, apiErr(CodeNotFound, "no such verification")
	}
	v, err := rp.d.rv.StoredVerification(r.Context(), m.org(), id)
	if err != nil {
		return view{}, pageReviewErr(err)
	}
	d := map[string]any{"ID": id, "Decision": v.Decision, "Completed": v.CompletedAt, "Erased": v.ErasedAt, "Files": len(v.Files)}
	return view{Title: "Erase verification", Nav: "review_erase", D: d}, nil
}

func (rp *reviewPages) eraseConfirm(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	v, err := rp.eraseView(r, m)
	return v, "", err
}

func (rp *reviewPages) erase(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	v, err := rp.eraseView(r, m)
	if err != nil {
		return v, "", err
	}
	if r.PostForm.Get("confirm") != "yes" {
		return v, "", idv.Errorf(idv.EInvalid, "tick the box to confirm the erasure")
	}
	notice := "erased"
	if v.D.(map[string]any)["Erased"].(*time.Time) != nil {
		notice = "already_erased"
	}
	id := r.PathValue("id")
	if err := rp.c.s.erase(r.Context(), rp.d.rv, m.org(), id, ReviewAction{Actor: consoleActor(m), Address: rp.c.s.callerAddr(r)}); err != nil {
		return v, "", pageReviewErr(err)
	}
	return view{}, "/console/verifications/" + id + "/erase?notice=" + notice, nil
}

// ---- the audit log ----

type auditData struct {
	Entries []AuditEntry
	Rows    []auditRow
	F       map[string]string
	Query   string
	Actions []string
	Limited bool
}

// auditRow is an audit line with its actor as a person reads it: the
// console's own lines name a member by id (console:<id>), shown as their
// email.
type auditRow struct {
	AuditEntry
	Who string
}

// auditPageRows bounds the page; the CSV has up to maxAuditRows.
const auditPageRows = 200

// auditActions are the actions the filter offers.
var auditActions = []string{"review.assigned", "review.approved", "review.rejected", "review.approval_proposed", "review.rejection_proposed",
	"verification.erased", "console.signin", "client.created", "client.rotated", "workflow.created", "workflow.updated", "webhook.created",
	"webhook.pause", "member.invited"}

func (rp *reviewPages) auditQuery(r *http.Request, m *member) (AuditFilter, *auditData, error) {
	q := r.URL.Query()
	d := &auditData{F: map[string]string{}, Actions: auditActions}
	qs := url.Values{}
	for _, k := range []string{"action", "actor", "object_id", "from", "to"} {
		d.F[k] = strings.TrimSpace(q.Get(k))
		if d.F[k] != "" {
			qs.Set(k, d.F[k])
		}
	}
	d.Query = qs.Encode()
	f, err := ParseAuditFilter(qs)
	return f, d, err
}

func (rp *reviewPages) auditPage(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	f, d, err := rp.auditQuery(r, m)
	v := view{Title: "Audit log", Nav: "audit", D: d}
	if err != nil {
		return v, "", err
	}
	f.Limit = auditPageRows + 1
	if d.Entries, err = rp.au.AuditLog(r.Context(), m.org(), f); err != nil {
		return v, "", err
	}
	if len(d.Entries) > auditPageRows {
		d.Entries, d.Limited = d.Entries[:auditPageRows], true
	}
	emails := map[string]string{}
	if us, err := rp.c.st.ListUsers(r.Context(), m.org()); err == nil {
		for _, u := range us {
			emails["console:"+u.ID] = u.Email
		}
	}
	for _, e := range d.Entries {
		who := e.Actor
		if em, ok := emails[e.Actor]; ok {
			who = em + " (console)"
		}
		d.Rows = append(d.Rows, auditRow{AuditEntry: e, Who: who})
	}
	return v, "", nil
}

func (rp *reviewPages) auditCSV(w http.ResponseWriter, r *http.Request, m *member) (view, string, error) {
	f, d, err := rp.auditQuery(r, m)
	if err != nil {
		return view{Title: "Audit log", Nav: "audit", D: d}, "", err
	}
	entries, err := rp.au.AuditLog(r.Context(), m.org(), f)
	if err != nil {
		return view{}, "", err
	}
	writeAuditCSV(w, entries)
	return view{}, "", errWritten
}

func init() {
	for k, v := range map[string]string{
		"assigned":       "Case assigned.",
		"decided":        "Decision recorded. The customer's backend is notified by webhook.",
		"first_decision": "First decision recorded. Under the four-eyes rule another reviewer must confirm it before the verdict changes.",
		"erased":         "Images and personal fields erased. The verdict, units and timings are kept.",
		"already_erased": "This verification was already erased: nothing more to remove.",
	} {
		noticeText[k] = v
	}
}
