package server_test

import (
	"fmt"
	"testing"
)

// BenchmarkUpload measures the server's own cost per verification: HTTPS,
// multipart parsing, image header checks, the claim and completion
// transactions on SQLite, storing the captures and a derived image, and
// the result JSON, around a cheap OCR stand-in.
func BenchmarkUpload(b *testing.B) {
	e := newEnv(b)
	front, back := captures(b)
	tok := e.token()
	i := 0
	for b.Loop() {
		i++
		r := e.upload(tok, e.uploadMessage(e.wfOCR, map[string]any{"request_id": fmt.Sprintf("b-%d", i)}),
			part{"front", front}, part{"back", back})
		if r.status != 200 {
			if r.code() == 402 {
				_, _ = e.admin.AddUnits(b.Context(), e.org.ID, 100000)
				continue
			}
			b.Fatalf("%d %s", r.status, r.body)
		}
	}
}
