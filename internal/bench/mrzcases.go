package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// MRZCase is one image with the MRZ lines it shows.
type MRZCase struct {
	Name  string
	Path  string
	Lines []string
}

// MRZSpecimens lists the vectors of dir/mrz_vectors.json that name an
// image: the truth the MRZ and OCR benchmarks score the specimens of the
// shared test data against. It lives here, not in mrzbench, so the OCR
// harness needs nothing of the MRZ harness (whose import registers
// mrz_parsing).
func MRZSpecimens(dir string) ([]MRZCase, error) {
	data, err := os.ReadFile(filepath.Join(dir, "mrz_vectors.json"))
	if err != nil {
		return nil, err
	}
	var f struct {
		Vectors []struct {
			ID    string   `json:"id"`
			Lines []string `json:"lines"`
			Image *string  `json:"image"`
		} `json:"vectors"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("mrz_vectors.json: %w", err)
	}
	var out []MRZCase
	for _, v := range f.Vectors {
		if v.Image != nil {
			out = append(out, MRZCase{v.ID, filepath.Join(dir, *v.Image), v.Lines})
		}
	}
	return out, nil
}
