package server

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"path"
	"strconv"
)

// File URLs are {files_url}/{exp}/{sig}/{key}: exp is the expiry in Unix
// seconds and sig the base64url HMAC-SHA256, under the server's files key,
// of "exp/key". Putting both in the path keeps the URL free of '&', which
// JSON encoders escape.

func (s *Server) fileSig(exp int64, key string) string {
	m := hmac.New(sha256.New, s.keys.Files)
	m.Write([]byte(strconv.FormatInt(exp, 10) + "/" + key))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// FileURL returns a signed URL for a stored key, valid for the configured
// time from now.
func (s *Server) FileURL(key string) string {
	exp := s.cfg.Now().Add(s.cfg.FileURLTTL).Unix()
	return s.cfg.FilesURL + "/" + strconv.FormatInt(exp, 10) + "/" + s.fileSig(exp, key) + "/" + key
}

var errBadFileURL = errors.New("invalid or expired file URL")

func (s *Server) checkFileURL(expS, sig, key string) error {
	exp, err := strconv.ParseInt(expS, 10, 64)
	if err != nil || exp < s.cfg.Now().Unix() {
		return errBadFileURL
	}
	if !hmac.Equal([]byte(sig), []byte(s.fileSig(exp, key))) {
		return errBadFileURL
	}
	return nil
}

func (s *Server) handleFile(w http.ResponseWriter, r *http.Request) {
	key := r.PathValue("key")
	if err := s.checkFileURL(r.PathValue("exp"), r.PathValue("sig"), key); err != nil {
		writeAPIError(w, apiErr(CodeForbidden, "%s", err), requestIDFrom(r.Context()))
		return
	}
	f, mod, err := s.files.Open(r.Context(), key)
	if errors.Is(err, ErrNotFound) {
		writeAPIError(w, apiErr(CodeNotFound, "no such file"), requestIDFrom(r.Context()))
		return
	}
	if err != nil {
		writeAPIError(w, apiErr(CodeInternal, "reading the file failed"), requestIDFrom(r.Context()))
		return
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
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "private, max-age=3600")
	w.Header().Set("Content-Disposition", "inline")
	http.ServeContent(w, r, "", mod, f)
}

// imageExt is the file extension for a detected image format.
func imageExt(format string) string {
	switch format {
	case "jpeg":
		return ".jpg"
	case "png":
		return ".png"
	case "webp":
		return ".webp"
	case "pdf":
		return ".pdf"
	}
	return ".bin"
}
