package docauthbench

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/tambua/tambua/idv"
)

// ocrState is what ocr_extraction leaves on a Case that
// document_authenticity reads, kept so that a change to the authenticity
// check can be measured again without reading every capture again (the
// reading is most of the cost: seconds per capture against a tenth of a
// second). It is tied to the capture's bytes, not to the reader's code:
// the cache folder must be emptied when checks/ocr changes.
type ocrState struct {
	Status   idv.Status
	Reasons  []string
	Config   string // the definition ocr_extraction settled on
	DocType  string
	Schema   []string
	Fields   map[string]string
	Quality  *idv.OCRQuality
	MRZText  string
	Readings *idv.OCRReadings
	// Images are the derived images, PNG-encoded, by name.
	Images map[string][]byte
}

// cacheKey names a capture set by its bytes.
func cacheKey(s Sample) string {
	h := sha256.New()
	h.Write(s.Front)
	h.Write([]byte{0})
	h.Write(s.Back)
	return hex.EncodeToString(h.Sum(nil)[:12]) + ".gob"
}

// saveOCR records what ocr_extraction left on c with its outcome.
func saveOCR(dir string, s Sample, c *idv.Case, out idv.Outcome) error {
	st := ocrState{Status: out.Status, Reasons: out.Reasons, DocType: c.DocumentType(), Images: map[string][]byte{}}
	if c.Definition != nil {
		st.Config = c.Definition.Config
	}
	st.Schema, st.Fields = c.Fields()
	if q, ok := idv.ValueOCRQuality.Get(c); ok {
		st.Quality = &q
	}
	st.MRZText, _ = idv.ValueMRZText.Get(c)
	if r, ok := idv.ValueOCRReadings.Get(c); ok {
		st.Readings = &r
	}
	for _, n := range c.DerivedNames() {
		img, _ := c.Derived(n)
		var b bytes.Buffer
		if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&b, img); err != nil {
			return err
		}
		st.Images[n] = b.Bytes()
	}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(st); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, cacheKey(s)), b.Bytes(), 0o644)
}

// loadOCR puts a recorded reading back on c and returns its outcome; ok
// is false when none is recorded for the sample.
func loadOCR(dir string, s Sample, c *idv.Case, defs func(string) (*idv.DocumentDefinition, bool)) (idv.Outcome, bool, error) {
	raw, err := os.ReadFile(filepath.Join(dir, cacheKey(s)))
	if errors.Is(err, fs.ErrNotExist) {
		return idv.Outcome{}, false, nil
	}
	if err != nil {
		return idv.Outcome{}, false, err
	}
	var st ocrState
	if err := gob.NewDecoder(bytes.NewReader(raw)).Decode(&st); err != nil {
		return idv.Outcome{}, false, fmt.Errorf("%s: %w", cacheKey(s), err)
	}
	if st.Config != "" {
		d, ok := defs(st.Config)
		if !ok {
			return idv.Outcome{}, false, fmt.Errorf("%s: unknown config %s", cacheKey(s), st.Config)
		}
		c.Definition = d
	}
	c.SetDocumentType(st.DocType)
	c.SetFields(st.Schema, st.Fields)
	if q := st.Quality; q != nil {
		// gob keeps no empty lists; the section shows them as [].
		if q.Conflicts == nil {
			q.Conflicts = []string{}
		}
		if q.Unread == nil {
			q.Unread = []string{}
		}
		idv.ValueOCRQuality.Set(c, *q)
	}
	if st.MRZText != "" {
		idv.ValueMRZText.Set(c, st.MRZText)
	}
	if st.Readings != nil {
		idv.ValueOCRReadings.Set(c, *st.Readings)
	}
	for n, b := range st.Images {
		img, _, err := image.Decode(bytes.NewReader(b))
		if err != nil {
			return idv.Outcome{}, false, fmt.Errorf("%s: %s: %w", cacheKey(s), n, err)
		}
		c.SetDerived(n, img)
	}
	return idv.Outcome{Status: st.Status, Reasons: st.Reasons}, true, nil
}
