package ocrbench

import (
	"encoding/json"

	"github.com/tambua/tambua/checks/ocr"
	"github.com/tambua/tambua/vision"
)

// cardResult is one line of Options.Results.
type cardResult struct {
	Name     string                 `json:"name"`
	Err      string                 `json:"err,omitempty"`
	Fields   map[string]string      `json:"fields,omitempty"`
	Raw      map[string]string      `json:"raw,omitempty"`
	Located  map[string]ocr.Located `json:"located,omitempty"`
	Reasons  []string               `json:"reasons,omitempty"`
	FromMRZ  []string               `json:"from_mrz,omitempty"`
	MRZText  string                 `json:"mrz_text,omitempty"`
	Outlines map[string]outline     `json:"outlines,omitempty"`
	Words    map[string][]ocr.Word  `json:"words,omitempty"`
}

// outline is where a side was found and how it was turned.
type outline struct {
	Found    bool        `json:"found"`
	Quad     vision.Quad `json:"quad"`
	Score    float64     `json:"score"`
	Rotation int         `json:"rotation"`
}

func outlineOf(c *vision.Card) outline {
	if c == nil {
		return outline{}
	}
	return outline{Found: c.Detection.Found, Quad: c.Detection.Quad, Score: c.Detection.Score, Rotation: c.Rotation}
}

// result writes what the check made of one card to Results.
func (r *run) result(name string, ex *ocr.Extraction, err error) error {
	if r.Results == nil {
		return nil
	}
	cr := cardResult{Name: name}
	if err != nil {
		cr.Err = err.Error()
	}
	if ex != nil {
		cr.Fields, cr.Raw, cr.Located, cr.Reasons = ex.Fields, ex.Raw, ex.Located, ex.Reasons
		cr.FromMRZ, cr.MRZText, cr.Words = ex.FromMRZ, ex.MRZText, ex.Words
		cr.Outlines = map[string]outline{}
		for side, c := range ex.Cards {
			cr.Outlines[side] = outlineOf(c)
		}
	}
	return r.writeResult(cr)
}

func (r *run) writeResult(cr cardResult) error {
	b, err := json.Marshal(cr)
	if err != nil {
		return err
	}
	_, err = r.Results.Write(append(b, '\n'))
	return err
}
