package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"image"
	"image/jpeg"
	_ "image/jpeg" // decoders for image.DecodeConfig
	_ "image/png"
	"io"
	"log/slog"
	"math"
	"mime"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tambua/tambua/checks/address/pdf"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/vision"
)

// slotFile is one capture: the multipart part name (or the direct
// request's field) is the slot.
type slotFile struct {
	slot   string
	data   []byte
	format string // jpeg or png, from the image header
}

// verifyInput is a verification request after transport parsing, whatever
// endpoint it came through.
type verifyInput struct {
	p          *Principal
	clientID   string
	workflowID string
	config     string
	// defaultConfig: when config is empty, use the workflow's first
	// document type (direct and SDK calls, whose documented bodies do not
	// name one).
	defaultConfig bool
	country       string
	requestID     string
	// message is the caller's message; keys other than request fields are
	// carried into the result.
	message   map[string]json.RawMessage
	files     []slotFile
	noAdapter bool
}

// Slot names: a letter, then letters, digits, _ or -, at most 64 in all.
// Anything else (a path like ../x) is refused before a byte is stored.
func validSlot(name string) bool {
	if name == "" || len(name) > 64 || name == "message" {
		return false
	}
	for i, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case i > 0 && (r >= '0' && r <= '9' || r == '_' || r == '-'):
		default:
			return false
		}
	}
	return true
}

// checkImage decides upfront, with the decoder the checks use
// (vision.Decode), whether a capture can be read: 415 when it is not a
// JPEG or PNG (WebP included: no check decodes it) or its data is corrupt
// behind a valid header, 413 when it has more pixels than allowed. Nothing
// is stored or billed before every capture has passed, so a request no
// check could read costs nothing.
func (s *Server) checkImage(ctx context.Context, slot string, data []byte) (string, *APIError) {
	if int64(len(data)) > s.cfg.Limits.FileBytes {
		return "", apiErr(CodePayloadTooLarge, "%s is larger than %d bytes", slot, s.cfg.Limits.FileBytes)
	}
	if pdf.Is(data) && slot != idv.SlotFront && slot != idv.SlotBack && slot != idv.SlotSelfie {
		return checkPDF(ctx, slot, data)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 {
		return "", apiErr(CodeUnreadableImage, "%s is not a readable JPEG or PNG image", slot)
	}
	if format != "jpeg" && format != "png" {
		return "", apiErr(CodeUnreadableImage, "%s is a %s image: send JPEG or PNG", slot, format)
	}
	if int64(cfg.Width)*int64(cfg.Height) > s.cfg.Limits.Pixels {
		return "", apiErr(CodePayloadTooLarge, "%s has %dx%d pixels, more than the %d allowed", slot, cfg.Width, cfg.Height, s.cfg.Limits.Pixels)
	}
	// A full decode costs memory in proportion to the pixels: at most
	// one per core at a time.
	select {
	case s.decoding <- struct{}{}:
	case <-ctx.Done():
		return "", apiErr(CodeBusy, "the request ended before its images were read")
	}
	defer func() { <-s.decoding }()
	_, err = vision.Decode(data)
	if errors.Is(err, vision.ErrTooSmall) {
		// Too small to read is the checks' verdict to give (it is a
		// readable image); only the data's integrity is decided here.
		_, _, err = image.Decode(bytes.NewReader(data))
	}
	if errors.Is(err, vision.ErrTooLarge) {
		return "", apiErr(CodePayloadTooLarge, "%s is larger than the checks read", slot)
	}
	if err != nil {
		return "", apiErr(CodeUnreadableImage, "%s is not a readable %s image: its data is corrupt or truncated", slot, strings.ToUpper(format))
	}
	return format, nil
}

// checkPDF decides upfront whether a document part sent as a PDF (a
// statement for address_verification) can be read: poppler's pdfinfo,
// bounded in time and memory, says whether it opens, is not encrypted and
// has at most pdf.DefaultLimits' pages. Captures of the card and the
// selfie are images only.
func checkPDF(ctx context.Context, slot string, data []byte) (string, *APIError) {
	_, err := pdf.Check(ctx, pdf.DefaultLimits, data)
	switch {
	case err == nil:
		return "pdf", nil
	case errors.Is(err, pdf.ErrTooLarge):
		return "", apiErr(CodePayloadTooLarge, "%s: %v", slot, err)
	case errors.Is(err, pdf.ErrEncrypted):
		return "", apiErr(CodeUnreadableImage, "%s is an encrypted PDF: send it without a password", slot)
	case errors.Is(err, pdf.ErrMalformed):
		return "", apiErr(CodeUnreadableImage, "%s is not a readable PDF", slot)
	}
	return "", apiErr(CodeInternal, "the PDF in %s could not be inspected", slot)
}

// contentType is the media type of a checked part's format.
func contentType(format string) string {
	if format == "pdf" {
		return "application/pdf"
	}
	return "image/" + format
}

// validID reports whether an identifier from a message is printable ASCII
// of sensible length.
func validID(s string, max int) bool {
	if s == "" || len(s) > max {
		return false
	}
	for _, r := range s {
		if r < 0x21 || r > 0x7e {
			return false
		}
	}
	return true
}

// requestStrings reads the request fields shared by all verification paths.
func requestStrings(fields map[string]json.RawMessage, in *verifyInput) *APIError {
	get := func(name string, required bool, dst *string) *APIError {
		raw, ok := fields[name]
		if !ok || string(raw) == "null" {
			if required {
				return apiErr(CodeInvalidRequest, "%s is required", name)
			}
			return nil
		}
		if err := json.Unmarshal(raw, dst); err != nil {
			return apiErr(CodeInvalidRequest, "%s must be a string", name)
		}
		if required && *dst == "" {
			return apiErr(CodeInvalidRequest, "%s is required", name)
		}
		return nil
	}
	for _, f := range []struct {
		name     string
		required bool
		dst      *string
	}{
		{"client_id", true, &in.clientID}, {"work_flow_id", true, &in.workflowID},
		{"config", !in.defaultConfig, &in.config}, {"country", false, &in.country}, {"request_id", false, &in.requestID},
	} {
		if e := get(f.name, f.required, f.dst); e != nil {
			return e
		}
	}
	if !validID(in.clientID, 64) || !validID(in.workflowID, 64) {
		return apiErr(CodeInvalidRequest, "client_id and work_flow_id must be identifiers")
	}
	if in.config != "" && !validID(in.config, 64) {
		return apiErr(CodeUnknownConfig, "unknown config")
	}
	if in.requestID != "" && !validID(in.requestID, 128) {
		return apiErr(CodeInvalidRequest, "request_id must be 1 to 128 printable ASCII characters")
	}
	if len(in.country) > 128 {
		return apiErr(CodeInvalidRequest, "country must have at most 128 characters")
	}
	return nil
}

// Fields of a direct verification (POST /v1/verify and the SDK payload).
var directImageFields = []struct{ field, slot string }{
	{"id_front_image_url", idv.SlotFront},
	{"id_back_image_url", idv.SlotBack},
	{"selfie_image_url", idv.SlotSelfie},
}

// directInput builds a verification from a direct request's fields: base64
// data URLs for the images, the request fields, anything else carried.
func (s *Server) directInput(ctx context.Context, p *Principal, fields map[string]json.RawMessage) (*verifyInput, *APIError) {
	in := &verifyInput{p: p, defaultConfig: true, message: map[string]json.RawMessage{}}
	if e := requestStrings(fields, in); e != nil {
		return nil, e
	}
	var total int64
	for _, f := range directImageFields {
		raw, ok := fields[f.field]
		if !ok || string(raw) == "null" {
			if f.slot == idv.SlotSelfie {
				continue
			}
			return nil, apiErr(CodeInvalidRequest, "%s is required", f.field)
		}
		var dataURL string
		if err := json.Unmarshal(raw, &dataURL); err != nil {
			return nil, apiErr(CodeInvalidRequest, "%s must be a string", f.field)
		}
		data, aerr := decodeDataURL(f.field, dataURL, s.cfg.Limits.FileBytes)
		if aerr != nil {
			return nil, aerr
		}
		total += int64(len(data))
		format, aerr := s.checkImage(ctx, f.slot, data)
		if aerr != nil {
			return nil, aerr
		}
		in.files = append(in.files, slotFile{slot: f.slot, data: data, format: format})
	}
	if total > s.cfg.Limits.RequestBytes {
		return nil, apiErr(CodePayloadTooLarge, "the images are larger than %d bytes together", s.cfg.Limits.RequestBytes)
	}
	for k, v := range fields {
		switch k {
		case "id_front_image_url", "id_back_image_url", "selfie_image_url", "method":
		default:
			in.message[k] = v
		}
	}
	return in, nil
}

// decodeDataURL decodes data:image/<type>;base64,<DATA>.
func decodeDataURL(field, s string, max int64) ([]byte, *APIError) {
	rest, ok := strings.CutPrefix(s, "data:")
	if !ok {
		return nil, apiErr(CodeInvalidRequest, "%s must be a data URL (data:image/jpeg;base64,...)", field)
	}
	meta, b64, ok := strings.Cut(rest, ",")
	if !ok || !strings.HasSuffix(meta, ";base64") || !strings.HasPrefix(meta, "image/") {
		return nil, apiErr(CodeInvalidRequest, "%s must be a base64 image data URL (data:image/jpeg;base64,...)", field)
	}
	if int64(base64.StdEncoding.DecodedLen(len(b64))) > max+3 {
		return nil, apiErr(CodePayloadTooLarge, "%s is larger than %d bytes", field, max)
	}
	enc := base64.StdEncoding
	if !strings.HasSuffix(b64, "=") && len(b64)%4 != 0 {
		enc = base64.RawStdEncoding
	}
	data, err := enc.DecodeString(b64)
	if err != nil {
		return nil, apiErr(CodeUnreadableImage, "%s is not valid base64", field)
	}
	return data, nil
}

// handleVerify is POST /v1/verify.
func (s *Server) handleVerify(w http.ResponseWriter, r *http.Request) {
	rid := requestIDFrom(r.Context())
	p, aerr := s.authenticate(r)
	if aerr != nil {
		writeAPIError(w, aerr, rid)
		return
	}
	r, release, aerr := s.takeBodySlot(r)
	if aerr != nil {
		writeAPIError(w, aerr, rid)
		return
	}
	defer release()
	// The spec sends JSON; a body declared as anything else is refused
	// before it is read (a missing Content-Type is read as JSON).
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			writeAPIError(w, apiErr(CodeInvalidRequest, "Content-Type must be application/json"), rid)
			return
		}
	}
	// Base64 adds a third: allow it above the request limit.
	r.Body = http.MaxBytesReader(w, r.Body, s.cfg.Limits.RequestBytes/3*4+64<<10)
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeAPIError(w, apiErr(CodePayloadTooLarge, "the body is larger than allowed"), rid)
		} else {
			writeAPIError(w, apiErr(CodeInvalidRequest, "the body could not be read"), rid)
		}
		return
	}
	fields, aerr := parseObject(body)
	if aerr != nil {
		writeAPIError(w, aerr, rid)
		return
	}
	var method string
	if raw, ok := fields["method"]; !ok || json.Unmarshal(raw, &method) != nil || method == "" {
		writeAPIError(w, apiErr(CodeMissingEnvelope, "missing method (process_idv)"), rid)
		return
	}
	if method != "process_idv" {
		writeAPIError(w, apiErr(CodeUnknownOperation, "unknown method: send process_idv"), rid)
		return
	}
	in, aerr := s.directInput(r.Context(), p, fields)
	if aerr != nil {
		writeAPIError(w, aerr, rid)
		return
	}
	out, aerr := s.verify(r.Context(), in)
	if aerr != nil {
		writeAPIError(w, aerr, rid)
		return
	}
	writeRawJSON(w, http.StatusOK, out)
}

// verify runs one verification from any endpoint and returns the response
// body. The order is the spec's and the issue's: ownership, workflow,
// stored result for a repeated request_id, config, units (refused before
// anything runs or is stored), then store the captures, run the checks on
// a worker, and store result, debit and events in one transaction.
func (s *Server) verify(ctx context.Context, in *verifyInput) ([]byte, *APIError) {
	if in.clientID != in.p.ClientID {
		return nil, apiErr(CodeForbidden, "client_id is not the owner of the access token")
	}
	if in.p.WorkflowID != "" && in.workflowID != in.p.WorkflowID {
		return nil, apiErr(CodeForbidden, "the access token is scoped to another workflow")
	}
	if in.p.Handoff != "" {
		// A phone opened by a hand-off runs one verification, stored
		// where the desktop that handed off looks for it; a retry after a
		// dropped connection replays it as any repeated request_id does.
		in.requestID = handoffRequestPrefix + in.p.Handoff
	}
	if in.noAdapter {
		return s.storeOnly(ctx, in)
	}
	wf, aerr := s.visibleWorkflow(ctx, in.p, in.workflowID)
	if aerr != nil {
		return nil, aerr
	}
	if in.config == "" {
		in.config = wf.Definition.DocumentTypes[0]
	}
	fp := requestFingerprint(wf.ID, in)
	if in.requestID != "" {
		if out, aerr := s.replay(ctx, in, wf.ID, fp); out != nil || aerr != nil {
			return out, aerr
		}
	}
	if !contains(wf.Definition.DocumentTypes, in.config) {
		return nil, apiErr(CodeUnknownConfig, "config %q is not among the workflow's document types %v", truncate(in.config, 64), wf.Definition.DocumentTypes)
	}
	if s.defs == nil {
		return nil, apiErr(CodeUnknownConfig, "this server has no document definitions")
	}
	if _, ok := s.defs.Definition(in.config); !ok {
		return nil, apiErr(CodeUnknownConfig, "unknown config %q", truncate(in.config, 64))
	}
	if aerr := checkMetadata(wf.Definition, in.message); aerr != nil {
		return nil, aerr
	}
	prep, aerr := s.prepare(wf)
	if aerr != nil {
		return nil, aerr
	}
	generated := in.requestID == ""
	if generated {
		in.requestID = idv.NewRequestID()
	}
	if aerr := s.sessions.use(in.p); aerr != nil {
		return nil, aerr
	}
	claim := Claim{ID: idv.NewID(), ClientID: in.clientID, OrganisationID: in.p.OrganisationID,
		WorkflowID: wf.ID, RequestID: in.requestID, Units: int64(prep.Cost()), Fingerprint: fp}
	for {
		err := s.store.ClaimVerification(ctx, claim, s.startedEvent(claim, wf))
		if err == nil {
			break
		}
		switch {
		case errors.Is(err, ErrInsufficientUnits):
			return nil, apiErr(CodeInsufficientUnits, "insufficient units: this workflow costs %d", claim.Units)
		case errors.Is(err, ErrConflict) && !generated:
			// The same request is running or has just finished.
			if out, aerr := s.replay(ctx, in, wf.ID, fp); out != nil || aerr != nil {
				return out, aerr
			}
			continue // it was released: claim it ourselves
		default:
			s.log.ErrorContext(ctx, "claim failed", "request_id", requestIDFrom(ctx), "error", err)
			return nil, apiErr(CodeInternal, "internal error")
		}
	}
	body, aerr := s.runClaimed(ctx, in, wf, prep, claim)
	if aerr != nil {
		if err := s.store.ReleaseClaim(context.WithoutCancel(ctx), claim.ID); err != nil {
			s.log.ErrorContext(ctx, "release claim failed", "request_id", requestIDFrom(ctx), "error", err)
		}
		return nil, aerr
	}
	return body, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// replay returns the stored result of (client, request_id), waiting while
// it is pending. It returns nil, nil when there is none (or the pending one
// was released). A stored or running verification of another workflow, or
// of a request with another fingerprint, is a conflict (409): its result
// is never returned, so a token scoped to one workflow cannot read another
// workflow's verification by guessing its request_id.
func (s *Server) replay(ctx context.Context, in *verifyInput, workflowID, fp string) ([]byte, *APIError) {
	deadline := s.cfg.Now().Add(s.cfg.QueueTimeout + s.cfg.RunTimeout + 10*time.Second)
	wait := 50 * time.Millisecond
	for {
		v, err := s.store.Verification(ctx, in.clientID, in.requestID)
		if (err == nil || errors.Is(err, ErrPending)) && !sameRequest(v, workflowID, fp) {
			return nil, apiErr(CodeRequestConflict, "request_id %q was already used for a different request; send a new request_id", truncate(in.requestID, 128))
		}
		switch {
		case err == nil:
			s.metrics.replays.Inc()
			return s.storedResult(v), nil
		case errors.Is(err, ErrNotFound):
			return nil, nil
		case errors.Is(err, ErrPending):
			if s.cfg.Now().After(deadline) {
				return nil, apiErr(CodeBusy, "a verification with this request_id is still running")
			}
			select {
			case <-ctx.Done():
				return nil, apiErr(CodeBusy, "the request ended while a verification with this request_id was running")
			case <-time.After(wait):
			}
			wait = min(wait*2, time.Second)
		default:
			return nil, apiErr(CodeInternal, "internal error")
		}
	}
}

// sameRequest reports whether a stored verification is the one a request
// with this workflow and fingerprint asks for. Rows stored before
// fingerprints existed have none; they match within their own workflow
// only, which is all the old rule needs to stay safe.
func sameRequest(v Verification, workflowID, fp string) bool {
	if v.WorkflowID != workflowID {
		return false
	}
	return v.Fingerprint == "" || v.Fingerprint == fp
}

// requestFingerprint is the hex SHA-256 of what makes a verification
// request what it is: the workflow, the config, the country, the metadata
// (re-encoded, so key order and spacing do not matter) and each capture's
// slot and bytes in slot order. Other carried message keys and the
// workflow's version are left out: they do not change what the checks
// see, and an edit of the workflow between a request and its retry must
// not turn the retry into a conflict.
func requestFingerprint(workflowID string, in *verifyInput) string {
	h := sha256.New()
	field := func(s string) {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	field("tambua-request-v1")
	field(workflowID)
	field(in.config)
	field(in.country)
	md := ""
	if raw, ok := in.message["metadata"]; ok {
		var v any
		if json.Unmarshal(raw, &v) == nil {
			b, _ := json.Marshal(v)
			md = string(b)
		}
	}
	field(md)
	files := append([]slotFile(nil), in.files...)
	sort.Slice(files, func(i, j int) bool { return files[i].slot < files[j].slot })
	for _, f := range files {
		sum := sha256.Sum256(f.data)
		field(f.slot)
		field(string(sum[:]))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// prepare returns the prepared workflow, cached per workflow version so an
// edit applies to the verifications that start after it.
func (s *Server) prepare(wf Workflow) (*idv.Prepared, *APIError) {
	s.prepMu.Lock()
	defer s.prepMu.Unlock()
	if e, ok := s.prepared[wf.ID]; ok && e.version == wf.Version {
		return e.p, nil
	}
	def := wf.Definition
	p, err := s.engine.Prepare(&def)
	if err != nil {
		return nil, apiErr(CodeCheckUnavailable, "this server cannot run the workflow: %s", strings.TrimPrefix(err.Error(), "idv: "))
	}
	s.prepared[wf.ID] = preparedEntry{version: wf.Version, p: p}
	return p, nil
}

// StoreOnlyPrefix is where no_adapter and single-file uploads are stored.
// Their files expire with their URLs (SweepFiles).
const StoreOnlyPrefix = "u/"

// storeOnly is no_adapter: store the files, return the message rewritten
// with their URLs, run nothing, bill nothing. What a client may store so
// is a daily byte budget (Limits.StoreOnlyBytes); over it, 429.
func (s *Server) storeOnly(ctx context.Context, in *verifyInput) ([]byte, *APIError) {
	var size int
	for _, f := range in.files {
		size += len(f.data)
	}
	if ok, retry := s.storeLimiter.allowN("client:"+in.clientID, size); !ok {
		if retry == 0 {
			return nil, apiErr(CodePayloadTooLarge, "the files are larger than the %d bytes a client may store in a day without verifying", s.cfg.Limits.StoreOnlyBytes)
		}
		e := apiErr(CodeRateLimited, "this client has stored its daily %d bytes of files without verification; retry later", s.cfg.Limits.StoreOnlyBytes)
		e.RetryAfter = retry
		return nil, e
	}
	if in.requestID == "" {
		in.requestID = idv.NewRequestID()
	}
	msg := in.message
	prefix := StoreOnlyPrefix + idv.NewID() + "/"
	for _, f := range in.files {
		key := prefix + f.slot + imageExt(f.format)
		if err := s.files.Put(ctx, key, f.data); err != nil {
			return nil, apiErr(CodeInternal, "storing %s failed", f.slot)
		}
		msg[f.slot+"_url"], _ = json.Marshal(s.FileURL(key))
	}
	msg["request_id"], _ = json.Marshal(in.requestID)
	msg["status"], _ = json.Marshal("stored")
	out, err := json.Marshal(msg)
	if err != nil {
		return nil, apiErr(CodeInternal, "internal error")
	}
	return out, nil
}

// storeTimeout bounds the storing of one derived image once the run's own
// deadline has passed: a local disk write of a few hundred KB, so 10 s is
// a stuck disk, not a slow one.
const storeTimeout = 10 * time.Second

// runClaimed stores the captures, runs the checks on a worker and completes
// the claim. Any error leaves the claim to be released by the caller.
func (s *Server) runClaimed(ctx context.Context, in *verifyInput, wf Workflow, prep *idv.Prepared, claim Claim) ([]byte, *APIError) {
	var filesMu sync.Mutex
	files := map[string]string{} // URL -> key
	prefix := "v/" + claim.ID + "/"
	images := map[string]idv.Image{}
	urls := map[string]string{}
	msg := map[string]json.RawMessage{}
	for k, v := range in.message {
		if !envelopeFields[k] {
			msg[k] = v
		}
	}
	completed := false
	defer func() {
		if completed {
			return
		}
		// Nothing was billed: keep nothing either.
		filesMu.Lock()
		defer filesMu.Unlock()
		for _, key := range files {
			if err := s.files.Delete(context.WithoutCancel(ctx), key); err != nil {
				s.log.WarnContext(ctx, "delete file failed", "request_id", requestIDFrom(ctx), "error", err)
			}
		}
	}()
	for _, f := range in.files {
		key := prefix + f.slot + imageExt(f.format)
		if err := s.files.Put(ctx, key, f.data); err != nil {
			s.log.ErrorContext(ctx, "store file failed", "request_id", requestIDFrom(ctx), "error", err)
			return nil, apiErr(CodeInternal, "storing %s failed", f.slot)
		}
		u := s.FileURL(key)
		files[u] = key
		urls[idv.OriginalImageName(f.slot)] = u
		images[f.slot] = idv.Image{Data: f.data, ContentType: contentType(f.format)}
		// The minted URL replaces any value the caller put under that key.
		msg[f.slot+"_url"], _ = json.Marshal(u)
	}

	// Wait for a worker, but not past the queue timeout: the client waits
	// 120 s at least, and a clear 230 beats a dropped connection.
	// The queue timeout covers the wait for a large-body slot too
	// (takeBodySlot), so that a request waits at most that long in all
	// before its checks start.
	slotWait, _ := ctx.Value(slotWaitKey).(time.Duration)
	waitStart := time.Now().Add(-slotWait)
	timer := time.NewTimer(max(0, s.cfg.QueueTimeout-slotWait))
	defer timer.Stop()
	select {
	case s.workers <- struct{}{}:
	case <-timer.C:
		// Released here so verification.timeout commits with the release.
		if err := s.store.ReleaseClaim(context.WithoutCancel(ctx), claim.ID, timeoutEvent(claim, s.cfg.QueueTimeout, time.Since(waitStart))); err != nil {
			s.log.ErrorContext(ctx, "release claim failed", "request_id", requestIDFrom(ctx), "error", err)
		}
		return nil, apiErr(CodeBusy, "no verification worker became free in time; retry once")
	case <-ctx.Done():
		return nil, apiErr(CodeBusy, "the request ended before a verification worker became free")
	}
	s.metrics.queueWait.Observe(time.Since(waitStart).Seconds())
	// The checks finish even when the client goes away: the result is
	// stored and billed once, and a retry with the same request_id gets it.
	runLimit, runStart := s.cfg.RunTimeout, time.Now()
	runCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), runLimit)
	res, err := prep.Verify(runCtx, idv.Input{
		Config: in.config, Images: images, Message: msg, RequestID: in.requestID,
		ClientID: in.clientID, WorkflowID: wf.ID, Country: in.country, ImageURLs: urls,
		StoreImage: func(ctx context.Context, name string, img image.Image) (string, error) {
			// Derived images are stored at the end of the run, when the
			// run's deadline may have passed (a check that ran out of
			// time is "could not run", and the verification completes):
			// store them with a context of their own, detached from that
			// deadline and bounded by storeTimeout.
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
			defer cancel()
			var b bytes.Buffer
			if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
				return "", err
			}
			key := prefix + name + ".jpg"
			if err := s.files.Put(ctx, key, b.Bytes()); err != nil {
				return "", err
			}
			u := s.FileURL(key)
			filesMu.Lock()
			files[u] = key
			filesMu.Unlock()
			return u, nil
		},
	})
	var late []Event
	if errors.Is(runCtx.Err(), context.DeadlineExceeded) {
		late = append(late, timeoutEvent(claim, runLimit, time.Since(runStart)))
	}
	cancel()
	<-s.workers
	if err != nil {
		switch idv.ErrorCode(err) {
		case idv.EInvalid:
			return nil, apiErr(CodeInvalidRequest, "%s", strings.TrimPrefix(err.Error(), "idv: "))
		case idv.ENotFound:
			return nil, apiErr(CodeUnknownConfig, "%s", strings.TrimPrefix(err.Error(), "idv: "))
		}
		s.log.ErrorContext(ctx, "verification failed", "request_id", requestIDFrom(ctx), "error", err)
		return nil, apiErr(CodeUpstreamFailed, "the verification could not be completed; retry once")
	}
	res.IDVUniqueID = claim.ID
	res.RequestID = in.requestID
	body, err := json.Marshal(res)
	if err != nil {
		return nil, apiErr(CodeInternal, "internal error")
	}
	v := Verification{ID: claim.ID, ClientID: claim.ClientID, OrganisationID: claim.OrganisationID, WorkflowID: wf.ID,
		RequestID: in.requestID, Units: claim.Units, Decision: string(res.Decision), Result: body, Files: files}
	used, err := s.store.UnitsUsedSince(ctx, claim.OrganisationID, s.cfg.Now().Add(-7*24*time.Hour))
	if err != nil {
		used = 0
	}
	events := withEvents(s.resultEvents(wf, res, in, used), late...)
	if _, err := s.store.CompleteVerification(context.WithoutCancel(ctx), v, events); err != nil {
		s.log.ErrorContext(ctx, "complete verification failed", "request_id", requestIDFrom(ctx), "error", err)
		return nil, apiErr(CodeInternal, "storing the verification failed; nothing was billed")
	}
	completed = true
	s.metrics.verifications.WithLabelValues(string(res.Decision)).Inc()
	for _, st := range res.PerformanceMetrics.StepTimings {
		if st.Status != idv.StatusSkipped {
			s.metrics.checks.WithLabelValues(st.Name, string(st.Status)).Observe(float64(st.DurationMS) / 1000)
		}
	}
	s.log.LogAttrs(ctx, slog.LevelInfo, "verification",
		slog.String("request_id", requestIDFrom(ctx)), slog.String("idv_unique_id", claim.ID),
		slog.String("workflow_id", wf.ID), slog.String("verdict", string(res.Decision)),
		slog.Int64("units", claim.Units), slog.Int64("duration_ms", res.PerformanceMetrics.TotalDurationMS))
	return body, nil
}

// checkMetadata applies the workflow's metadata field types before
// anything is stored (the engine checks them again when it runs).
func checkMetadata(w idv.Workflow, msg map[string]json.RawMessage) *APIError {
	if _, err := w.Metadata(msg); err != nil {
		return apiErr(CodeInvalidRequest, "%s", strings.TrimPrefix(err.Error(), "idv: "))
	}
	return nil
}

// envelopeFields are the /upload and /postdata fields that address the
// request itself; every other message field is the caller's and is carried
// to the result.
var envelopeFields = map[string]bool{
	"rpcQueue": true, "menu": true, "method": true, "no_adapter": true,
	"client_id": true, "work_flow_id": true, "config": true, "country": true,
	"request_id": true,
}

// startedEvent is verification.started, written with the claim.
func (s *Server) startedEvent(c Claim, wf Workflow) Event {
	data, _ := json.Marshal(map[string]any{
		"verification_id": c.ID, "workflow_id": wf.ID, "workflow_name": wf.Definition.Name,
		"request_id": c.RequestID, "client_id": c.ClientID, "status": "started",
	})
	return Event{EventID: idv.NewRequestID(), Event: "verification.started", OrganisationID: c.OrganisationID, Data: data}
}

// minVerificationCost is the cost of the cheapest possible workflow (OCR
// extraction alone): a balance below it can pay for no verification.
var minVerificationCost = func() int64 {
	ci, _ := idv.Info(idv.CheckOCR)
	return int64(ci.Cost)
}()

// resultEvents returns the callback that builds, inside the completing
// transaction, the verification event (completed on accept,
// review_required on review, failed on reject) and the balance events.
func (s *Server) resultEvents(wf Workflow, res *idv.Result, in *verifyInput, usedLastWeek int64) func(Organisation, int64) []Event {
	return func(before Organisation, after int64) []Event {
		org := before.ID
		var out []Event
		add := func(name string, data any) {
			raw, err := json.Marshal(data)
			if err != nil {
				return
			}
			out = append(out, Event{EventID: idv.NewRequestID(), Event: name, OrganisationID: org, Data: raw})
		}
		switch res.Decision {
		case idv.Accept:
			add("verification.completed", completedData(wf, res))
		case idv.Review:
			add("verification.review_required", completedData(wf, res))
		default:
			add("verification.failed", failedData(wf, res))
		}
		cost := int64(res.UnitsConsumed)
		if before.Balance >= before.LowBalanceThreshold && after < before.LowBalanceThreshold {
			daily := float64(usedLastWeek+cost) / 7
			days := math.Ceil(float64(after) / math.Max(daily, 1))
			add("units.low_balance", map[string]any{
				"current_balance":                   after,
				"threshold":                         before.LowBalanceThreshold,
				"estimated_verifications_remaining": after / max(cost, 1),
				"projected_depletion_date":          s.cfg.Now().UTC().AddDate(0, 0, int(days)).Format("2006-01-02"),
			})
		}
		if ev, ok := creditsLowEvent(org, in.clientID, wf.ID, before.Balance, after, cost); ok {
			out = append(out, ev)
		}
		if before.Balance >= minVerificationCost && after < minVerificationCost {
			add("units.depleted", map[string]any{"current_balance": after, "minimum_verification_cost": minVerificationCost})
		}
		return out
	}
}

func completedData(wf Workflow, res *idv.Result) map[string]any {
	checks := map[string]any{}
	conf := 1.0
	for _, cr := range res.CheckResults {
		c := map[string]any{"result": string(cr.Status)}
		if cr.Confidence != nil {
			c["confidence"] = *cr.Confidence
			conf = math.Min(conf, *cr.Confidence)
		}
		checks[cr.Name] = c
	}
	metadata := map[string]json.RawMessage{}
	if raw, ok := res.Extra["metadata"]; ok {
		_ = json.Unmarshal(raw, &metadata)
	}
	return map[string]any{
		"verification_id":    res.IDVUniqueID,
		"workflow_id":        wf.ID,
		"workflow_name":      wf.Definition.Name,
		"status":             string(res.Decision),
		"confidence":         conf,
		"units_consumed":     res.UnitsConsumed,
		"processing_time_ms": res.PerformanceMetrics.TotalDurationMS,
		"result": map[string]any{
			"decision":       string(res.Decision),
			"extracted_data": nonNilStrings(res.Combined),
			"checks":         checks,
		},
		"metadata": metadata,
	}
}

func failedData(wf Workflow, res *idv.Result) map[string]any {
	d := map[string]any{
		"verification_id": res.IDVUniqueID,
		"workflow_id":     wf.ID,
		"status":          string(res.Decision),
		"reason":          strings.Join(res.DecisionReasons, ","),
		"failed_check":    "",
		"confidence":      0.0,
		"threshold":       0.0,
		"units_consumed":  res.UnitsConsumed,
	}
	for _, cr := range res.CheckResults {
		if cr.Status == idv.StatusFailed {
			d["failed_check"] = cr.Name
			if len(cr.Reasons) > 0 {
				d["reason"] = cr.Reasons[0]
			}
			if cr.Confidence != nil {
				d["confidence"] = *cr.Confidence
			}
			if cr.Threshold != nil {
				d["threshold"] = *cr.Threshold
			}
			break
		}
	}
	return d
}

func nonNilStrings(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}
