package server

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
)

// uploadForm is a parsed /upload body: the message part and the file
// parts in the order sent.
type uploadForm struct {
	message []byte
	files   []slotFile
}

// readUpload reads the multipart body whole (within the limits) before
// anything is stored: a body over the request limit, a part over the file
// limit, a bad slot name or a repeated slot is refused here.
func (s *Server) readUpload(w http.ResponseWriter, r *http.Request) (*uploadForm, *APIError) {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return nil, apiErr(CodeInvalidRequest, "Content-Type must be multipart/form-data with a boundary")
	}
	lim := s.cfg.Limits
	if r.ContentLength > lim.RequestBytes {
		return nil, apiErr(CodePayloadTooLarge, "the body is larger than %d bytes", lim.RequestBytes)
	}
	r.Body = http.MaxBytesReader(w, r.Body, lim.RequestBytes)
	mr := multipart.NewReader(r.Body, params["boundary"])
	form := &uploadForm{}
	seen := map[string]bool{}
	tooLarge := func(err error) bool {
		var mbe *http.MaxBytesError
		return errors.As(err, &mbe)
	}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if tooLarge(err) {
				return nil, apiErr(CodePayloadTooLarge, "the body is larger than %d bytes", lim.RequestBytes)
			}
			return nil, apiErr(CodeInvalidRequest, "the multipart body is malformed")
		}
		name := part.FormName()
		max := lim.FileBytes
		if name == "message" {
			max = lim.MessageBytes
		} else if !validSlot(name) {
			part.Close()
			return nil, apiErr(CodeInvalidRequest, "part name %q is not a valid slot name (a letter, then letters, digits, _ or -; at most 64)", truncate(name, 64))
		}
		if seen[name] {
			part.Close()
			return nil, apiErr(CodeInvalidRequest, "part %q appears twice", name)
		}
		seen[name] = true
		data, err := io.ReadAll(io.LimitReader(part, max+1))
		part.Close()
		if err != nil {
			if tooLarge(err) {
				return nil, apiErr(CodePayloadTooLarge, "the body is larger than %d bytes", lim.RequestBytes)
			}
			return nil, apiErr(CodeInvalidRequest, "the multipart body is malformed")
		}
		if int64(len(data)) > max {
			return nil, apiErr(CodePayloadTooLarge, "part %s is larger than %d bytes", name, max)
		}
		if name == "message" {
			form.message = data
			continue
		}
		if len(form.files) >= lim.FileParts {
			return nil, apiErr(CodePayloadTooLarge, "more than %d file parts", lim.FileParts)
		}
		form.files = append(form.files, slotFile{slot: name, data: data})
	}
	return form, nil
}

// parseUploadMessage checks the message of an /upload and builds the
// verification input from it and the files. It does no I/O, so it is what
// the fuzz test drives.
func parseUploadMessage(message []byte, nfiles int) (*verifyInput, *APIError) {
	if message == nil {
		return nil, apiErr(CodeMissingEnvelope, "missing message part (rpcQueue, menu, method)")
	}
	env, aerr := parseEnvelope(message)
	if aerr != nil {
		return nil, aerr
	}
	if env.Menu != MenuUpload || env.Method != MethodUpload {
		return nil, apiErr(CodeUnknownOperation, "unknown menu/method %s/%s: send %s/%s", truncate(env.Menu, 64), truncate(env.Method, 64), MenuUpload, MethodUpload)
	}
	in := &verifyInput{message: env.Fields}
	raw, ok := env.Fields["no_adapter"]
	if !ok || json.Unmarshal(raw, &in.noAdapter) != nil {
		return nil, apiErr(CodeInvalidRequest, "no_adapter is required and must be a boolean (false to verify)")
	}
	// A single file is a legacy one-off upload: stored, not verified.
	if nfiles == 1 {
		in.noAdapter = true
	}
	if in.noAdapter {
		var id string
		if raw, ok := env.Fields["client_id"]; !ok || json.Unmarshal(raw, &id) != nil || !validID(id, 64) {
			return nil, apiErr(CodeInvalidRequest, "client_id is required")
		}
		in.clientID = id
		var rid string
		if raw, ok := env.Fields["request_id"]; ok && json.Unmarshal(raw, &rid) == nil && validID(rid, 128) {
			in.requestID = rid
		}
		if nfiles == 0 {
			return nil, apiErr(CodeInvalidRequest, "no file parts")
		}
		return in, nil
	}
	if nfiles < 2 {
		return nil, apiErr(CodeInvalidRequest, "a verification needs at least two file parts (front and back)")
	}
	if aerr := requestStrings(env.Fields, in); aerr != nil {
		return nil, aerr
	}
	return in, nil
}

// handleUpload is POST /upload.
func (s *Server) handleUpload(w http.ResponseWriter, r *http.Request) {
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
	form, aerr := s.readUpload(w, r)
	if aerr != nil {
		writeAPIError(w, aerr, rid)
		return
	}
	in, aerr := parseUploadMessage(form.message, len(form.files))
	if aerr != nil {
		writeAPIError(w, aerr, rid)
		return
	}
	in.p = p
	for i := range form.files {
		f := &form.files[i]
		if f.format, aerr = s.checkImage(r.Context(), f.slot, f.data); aerr != nil {
			writeAPIError(w, aerr, rid)
			return
		}
	}
	in.files = form.files
	if !in.noAdapter {
		front, back := false, false
		for _, f := range in.files {
			front = front || f.slot == "front"
			back = back || f.slot == "back"
		}
		if !front || !back {
			writeAPIError(w, apiErr(CodeInvalidRequest, "parts front and back are required"), rid)
			return
		}
	}
	out, aerr := s.verify(r.Context(), in)
	if aerr != nil {
		writeAPIError(w, aerr, rid)
		return
	}
	writeRawJSON(w, http.StatusOK, out)
}
