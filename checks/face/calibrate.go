package face

import (
	"context"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"sort"

	"github.com/tambua/tambua/internal/facerec"
)

// JohnsDir is where Debian's libdlib19.1 ships dlib's 5 x 11 test faces.
const JohnsDir = "/usr/share/doc/libdlib19.1/examples/johns"

// Pair is one scored comparison of a calibration set.
type Pair struct {
	A, B     string
	Same     bool
	Distance float64
	// Missing is true when either side had no face (counted as a
	// non-match).
	Missing bool
}

// Labelled is one image of a known person.
type Labelled struct {
	Person, Path string
}

// Decode reads and decodes the image as face matching decodes a capture
// (facerec.Decode); a decoding error names the file.
func (l Labelled) Decode() (image.Image, error) {
	data, err := os.ReadFile(l.Path)
	if err != nil {
		return nil, err
	}
	img, err := facerec.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", l.Path, err)
	}
	return img, nil
}

// LoadJohns lists the johns photos, person by person.
func LoadJohns(dir string) ([]Labelled, error) {
	people, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []Labelled
	for _, p := range people {
		if !p.IsDir() {
			continue
		}
		files, err := filepath.Glob(filepath.Join(dir, p.Name(), "*.jpg"))
		if err != nil {
			return nil, err
		}
		sort.Strings(files)
		for _, f := range files {
			out = append(out, Labelled{Person: p.Name(), Path: f})
		}
	}
	return out, nil
}

// AllPairs embeds every image once and scores every unordered pair.
func (m *Matcher) AllPairs(ctx context.Context, set []Labelled) ([]Pair, error) {
	faces := make([]*facerec.Face, len(set))
	for i, l := range set {
		img, err := l.Decode()
		if err != nil {
			return nil, err
		}
		f, err := m.Dominant(ctx, img)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", l.Path, err)
		}
		faces[i] = f.Face
	}
	var pairs []Pair
	for i := range set {
		for j := i + 1; j < len(set); j++ {
			p := Pair{A: set[i].Path, B: set[j].Path, Same: set[i].Person == set[j].Person}
			if faces[i] == nil || faces[j] == nil {
				p.Missing = true
			} else {
				p.Distance = facerec.Distance(faces[i].Descriptor, faces[j].Descriptor)
			}
			pairs = append(pairs, p)
		}
	}
	return pairs, nil
}

// Rates are the error rates of a set of pairs at one threshold.
type Rates struct {
	Threshold float64 `json:"threshold"`
	Distance  float64 `json:"distance"`
	// FMR: share of different-person pairs that match.
	FMR float64 `json:"fmr"`
	// FNMR: share of same-person pairs that do not match.
	FNMR           float64 `json:"fnmr"`
	FalseMatches   int     `json:"false_matches"`
	FalseNonMatch  int     `json:"false_non_matches"`
	Genuine        int     `json:"genuine_pairs"`
	Impostor       int     `json:"impostor_pairs"`
	ReviewGenuine  int     `json:"genuine_in_review_band"`
	ReviewImpostor int     `json:"impostor_in_review_band"`
}

// RatesAt scores pairs at a similarity threshold with the default review
// band. A pair in the review band is neither a match nor a non-match; it
// counts against FNMR for genuine pairs (not accepted automatically) and
// not against FMR for impostors (not accepted either).
func RatesAt(pairs []Pair, threshold float64) Rates {
	r := Rates{Threshold: threshold, Distance: DistanceAt(threshold)}
	for _, p := range pairs {
		sim := 0.0
		if !p.Missing {
			sim = Similarity(p.Distance)
		}
		match := sim >= threshold
		review := !match && sim >= threshold-DefaultReviewBand
		if p.Same {
			r.Genuine++
			if !match {
				r.FalseNonMatch++
			}
			if review {
				r.ReviewGenuine++
			}
		} else {
			r.Impostor++
			if match {
				r.FalseMatches++
			}
			if review {
				r.ReviewImpostor++
			}
		}
	}
	if r.Genuine > 0 {
		r.FNMR = float64(r.FalseNonMatch) / float64(r.Genuine)
	}
	if r.Impostor > 0 {
		r.FMR = float64(r.FalseMatches) / float64(r.Impostor)
	}
	return r
}

// ROCThresholds are the rows of the ROC table the benchmark prints.
var ROCThresholds = []float64{0.50, 0.60, 0.65, 0.70, 0.75, 0.80, 0.85, 0.90, 0.95}
