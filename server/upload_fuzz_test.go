package server

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"testing"
)

// FuzzReadUpload drives the /upload multipart reader with any
// Content-Type and body: it must never panic, must refuse with a
// documented code, and what it accepts must hold every part of the body,
// each within the limits, named as a slot, none twice.
func FuzzReadUpload(f *testing.F) {
	// Small limits, so that the fuzzer reaches them.
	lim := Limits{FileBytes: 64, RequestBytes: 1 << 10, MessageBytes: 128, FileParts: 3}
	s := &Server{cfg: Config{Limits: lim}}
	const boundary = "fuzzboundary"
	ctype := "multipart/form-data; boundary=" + boundary
	form := func(parts ...[2]string) []byte {
		var b bytes.Buffer
		w := multipart.NewWriter(&b)
		_ = w.SetBoundary(boundary)
		for _, p := range parts {
			pw, _ := w.CreateFormFile(p[0], p[0]+".jpg")
			_, _ = pw.Write([]byte(p[1]))
		}
		_ = w.Close()
		return b.Bytes()
	}
	msg := `{"rpcQueue":"idv-gateway-v2","menu":"service-ai","method":"init","no_adapter":false,"client_id":"c"}`
	for _, seed := range [][]byte{
		form([2]string{"message", msg}, [2]string{"front", "\xff\xd8\xff"}, [2]string{"back", "\xff\xd8\xff"}),
		form([2]string{"message", msg}, [2]string{"front", "a"}, [2]string{"front", "b"}),
		form([2]string{"front", string(bytes.Repeat([]byte{1}, 80))}),
		form([2]string{"9bad", "x"}),
		form([2]string{"a", "1"}, [2]string{"b", "2"}, [2]string{"c", "3"}, [2]string{"d", "4"}),
		form(),
		[]byte("--" + boundary + "\r\nContent-Disposition: form-data; name=\"front\"\r\n\r\nno end"),
		[]byte("garbage"),
	} {
		f.Add(ctype, seed)
	}
	f.Add("text/plain", []byte("x"))
	f.Add("multipart/form-data", []byte("x"))
	f.Add("multipart/form-data; boundary=\"\"", []byte("x"))
	documented := ErrorCodes()
	f.Fuzz(func(t *testing.T, contentType string, body []byte) {
		r := httptest.NewRequest(http.MethodPost, "/upload", bytes.NewReader(body))
		r.Header.Set("Content-Type", contentType)
		got, aerr := s.readUpload(httptest.NewRecorder(), r)
		if aerr != nil {
			if _, ok := documented[aerr.Code]; !ok {
				t.Fatalf("undocumented code %d", aerr.Code)
			}
			if got != nil {
				t.Fatal("a form returned with an error")
			}
			return
		}
		if int64(len(body)) > lim.RequestBytes {
			t.Fatalf("accepted a body of %d bytes, limit %d", len(body), lim.RequestBytes)
		}
		if len(got.files) > lim.FileParts || int64(len(got.message)) > lim.MessageBytes {
			t.Fatalf("accepted %d files, message of %d bytes", len(got.files), len(got.message))
		}
		seen := map[string]bool{}
		for _, fl := range got.files {
			if !validSlot(fl.slot) || seen[fl.slot] || int64(len(fl.data)) > lim.FileBytes {
				t.Fatalf("accepted part %q (%d bytes, seen before %v)", fl.slot, len(fl.data), seen[fl.slot])
			}
			seen[fl.slot] = true
		}
		// Nothing lost: an independent reading of the same body finds the
		// same parts with the same bytes.
		_, params, err := mime.ParseMediaType(contentType)
		if err != nil {
			t.Fatalf("accepted Content-Type %q: %v", contentType, err)
		}
		mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
		n := 0
		for {
			part, err := mr.NextPart()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("accepted a body the multipart reader refuses: %v", err)
			}
			data, err := io.ReadAll(part)
			if err != nil {
				t.Fatalf("accepted a part the multipart reader cannot read: %v", err)
			}
			name := part.FormName()
			want := got.message
			if name != "message" {
				if n >= len(got.files)+1 {
					t.Fatalf("part %q not in the form", name)
				}
				want = nil
				for _, fl := range got.files {
					if fl.slot == name {
						want = fl.data
					}
				}
			}
			if !bytes.Equal(data, want) {
				t.Fatalf("part %q: read %d bytes, form holds %d", name, len(data), len(want))
			}
			n++
		}
		msgParts := 0
		if got.message != nil {
			msgParts = 1
		}
		if n != len(got.files)+msgParts {
			t.Fatalf("body has %d parts, form %d files and %d message", n, len(got.files), msgParts)
		}
	})
}
