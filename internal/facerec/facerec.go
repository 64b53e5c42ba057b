// Package facerec is the process-wide face detector and embedder over dlib
// (github.com/Kagami/go-face). checks/face and checks/liveness both need
// faces from the same models; keeping the one cgo wrapper here lets them
// share a single copy of the models (about 100 MB resident) without the two
// sibling checks importing each other.
//
// go-face reads only JPEG, so images are normalised in Go (decoded,
// resized into a working range, re-encoded as JPEG) before they cross into
// C++, and rectangles come back in the caller's coordinates.
package facerec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/jpeg"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"

	goface "github.com/Kagami/go-face"
	"github.com/disintegration/imaging"
)

// ModelFiles are the dlib model files go-face loads from the models folder.
var ModelFiles = []string{
	"dlib_face_recognition_resnet_model_v1.dat",
	"mmod_human_face_detector.dat",
	"shape_predictor_5_face_landmarks.dat",
}

// ModelName names the embedding model in results.
const ModelName = "dlib_face_recognition_resnet_model_v1"

// ErrNoModels is returned when the models folder lacks a model file.
var ErrNoModels = errors.New("facerec: dlib models not found (run make setup or set TAMBUA_MODELS)")

// Descriptor is the 128-d embedding of a face.
type Descriptor [128]float32

// Distance is the Euclidean distance between two descriptors.
func Distance(a, b Descriptor) float64 {
	var s float64
	for i := range a {
		d := float64(a[i]) - float64(b[i])
		s += d * d
	}
	return math.Sqrt(s)
}

// Face is one detected face in the caller's image coordinates.
type Face struct {
	Rect       image.Rectangle
	Descriptor Descriptor
	// Landmarks are dlib's five points: two corners of each eye and the
	// base of the nose.
	Landmarks []image.Point
}

// Area is the pixel area of the face rectangle.
func (f Face) Area() int { return f.Rect.Dx() * f.Rect.Dy() }

// Working range of the longer image side. dlib's HOG detector scans an
// 80x80 window without upsampling, so small images (the 150 px johns, an
// ID photo crop) are enlarged until a face fills well over that window,
// and large captures are reduced because detection time grows with area.
const (
	minSide = 320
	// maxSide 512 rather than 640: HOG time grows with area, and on the
	// synthetic card/selfie pairs the larger size found no more faces
	// and matched no more pairs, for about 60 % more time per selfie.
	maxSide = 512
	// retrySide is the larger working size tried when no face was found
	// at the normal size: a card photographed from afar has a small face.
	retrySide = 1400
)

// Options configure a Recognizer.
type Options struct {
	// Pool is the number of dlib recognisers. Each holds its own copy of the
	// networks; more than one lets detections run in parallel. 0 means the
	// default (see DefaultPool).
	Pool int
}

// DefaultPool is the pool size used when Options.Pool is 0. One recogniser
// already overlaps detection and embedding of two concurrent calls (go-face
// guards them with separate mutexes); BenchmarkDetectParallel measures a
// second one and docs/face.md records the figures.
func DefaultPool() int {
	if runtime.GOMAXPROCS(0) >= 2 {
		return 2
	}
	return 1
}

// Recognizer detects and embeds faces. It is safe for concurrent use:
// calls take a dlib recogniser from the pool and return it.
type Recognizer struct {
	dir  string
	pool chan *goface.Recognizer
	all  []*goface.Recognizer
	mu   sync.Mutex
}

// Load loads the models from dir into a new Recognizer. Prefer Shared,
// which loads once per process.
func Load(dir string, o Options) (*Recognizer, error) {
	for _, f := range ModelFiles {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return nil, fmt.Errorf("%w: %s", ErrNoModels, filepath.Join(dir, f))
		}
	}
	n := o.Pool
	if n <= 0 {
		n = DefaultPool()
	}
	r := &Recognizer{dir: dir, pool: make(chan *goface.Recognizer, n)}
	for i := 0; i < n; i++ {
		rec, err := goface.NewRecognizer(dir)
		if err != nil {
			r.Close()
			return nil, fmt.Errorf("facerec: loading models from %s: %w", dir, err)
		}
		r.all = append(r.all, rec)
		r.pool <- rec
	}
	return r, nil
}

// Close frees the dlib recognisers. The Recognizer must not be used after.
func (r *Recognizer) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rec := range r.all {
		rec.Close()
	}
	r.all = nil
	return nil
}

var (
	sharedMu sync.Mutex
	shared   = map[string]*Recognizer{}
)

// Shared returns the process-wide Recognizer for dir, loading the models
// on the first call (lazily, so a process that never compares a face never
// pays for them). A failed load is not cached, so a later call may succeed
// once the models are in place.
func Shared(dir string) (*Recognizer, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if r, ok := shared[abs]; ok {
		return r, nil
	}
	r, err := Load(abs, Options{})
	if err != nil {
		return nil, err
	}
	shared[abs] = r
	return r, nil
}

// ModelsDir returns the models folder from a setting, $TAMBUA_MODELS, or
// ./models, in that order.
func ModelsDir(setting string) string {
	if setting != "" {
		return setting
	}
	if d := os.Getenv("TAMBUA_MODELS"); d != "" {
		return d
	}
	return "models"
}

// Detect finds every face in img, largest first. An image without a face
// gives an empty slice and no error.
func (r *Recognizer) Detect(ctx context.Context, img image.Image) ([]Face, error) {
	if img == nil || img.Bounds().Empty() {
		return nil, errors.New("facerec: empty image")
	}
	faces, err := r.detectAt(ctx, img, minSide, maxSide)
	if err != nil || len(faces) > 0 {
		return faces, err
	}
	b := img.Bounds()
	if max(b.Dx(), b.Dy()) >= maxSide/2 {
		// A face smaller than the HOG window at the normal size may still
		// be found when enlarged (an ID photo on a whole-card capture).
		return r.detectAt(ctx, img, retrySide, retrySide)
	}
	return faces, nil
}

// detectAt scales img so that its longer side lies in [lo, hi], runs dlib
// and maps the results back.
func (r *Recognizer) detectAt(ctx context.Context, img image.Image, lo, hi int) ([]Face, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b := img.Bounds()
	long := max(b.Dx(), b.Dy())
	scale := 1.0
	switch {
	case long < lo:
		scale = float64(lo) / float64(long)
	case long > hi:
		scale = float64(hi) / float64(long)
	}
	work := img
	if scale != 1 {
		w := int(math.Round(float64(b.Dx()) * scale))
		h := int(math.Round(float64(b.Dy()) * scale))
		work = imaging.Resize(img, max(w, 1), max(h, 1), imaging.Linear)
	}
	// image/jpeg has a fast path for *image.RGBA only; any other type goes
	// pixel by pixel through interfaces, which costs more than the scan.
	rgba := image.NewRGBA(image.Rect(0, 0, work.Bounds().Dx(), work.Bounds().Dy()))
	draw.Draw(rgba, rgba.Rect, work, work.Bounds().Min, draw.Src)
	work = rgba
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, work, &jpeg.Options{Quality: 95}); err != nil {
		return nil, fmt.Errorf("facerec: encoding: %w", err)
	}
	var rec *goface.Recognizer
	select {
	case rec = <-r.pool:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	found, err := rec.Recognize(buf.Bytes())
	r.pool <- rec
	if err != nil {
		return nil, fmt.Errorf("facerec: %w", err)
	}
	wb := work.Bounds()
	back := func(p image.Point) image.Point {
		return image.Pt(
			b.Min.X+int(math.Round(float64(p.X-wb.Min.X)/scale)),
			b.Min.Y+int(math.Round(float64(p.Y-wb.Min.Y)/scale)))
	}
	faces := make([]Face, 0, len(found))
	for _, f := range found {
		out := Face{
			Rect:       image.Rectangle{Min: back(f.Rectangle.Min), Max: back(f.Rectangle.Max)}.Canon(),
			Descriptor: Descriptor(f.Descriptor),
		}
		for _, p := range f.Shapes {
			out.Landmarks = append(out.Landmarks, back(p))
		}
		faces = append(faces, out)
	}
	sort.SliceStable(faces, func(i, j int) bool { return faces[i].Area() > faces[j].Area() })
	return faces, nil
}
