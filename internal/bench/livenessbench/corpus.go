// Package livenessbench makes the labelled selfies liveness_detection is
// trained and measured on: genuine selfies and print and screen replay
// attacks from the synthetic corpus (internal/synth), split into training
// and held-out samples by sample index. tambua liveness train and tambua
// bench liveness are thin wrappers around Train and Bench.
package livenessbench

import (
	"context"
	"fmt"
	"image"
	"math"
	"runtime"
	"sync"
	"time"

	"github.com/disintegration/imaging"

	"github.com/tambua/tambua/checks/liveness"
	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/internal/facerec"
	"github.com/tambua/tambua/internal/testkit/synth"
)

// DefaultSeed is the corpus seed of the shipped model.
const DefaultSeed = 1

// Difficulties are cycled through by sample index, twelve samples (one
// turn of the synthetic attack schedule) at a time.
var Difficulties = []synth.Difficulty{synth.Easy, synth.Medium, synth.Hard}

// Item is one selfie of the corpus, before rendering.
type Item struct {
	Index      int
	Difficulty synth.Difficulty
	// Kind is liveness.KindLive, synth.AttackPrint or synth.AttackScreen.
	Kind    string
	HeldOut bool
}

// HeldOut reports whether sample index belongs to the held-out split:
// one in five, by index, so that the split does not depend on how many
// samples a run makes.
func HeldOut(index int) bool { return index%5 == 4 }

// Options configure a corpus.
type Options struct {
	Seed uint64
	// Count is how many synthetic sample indices are scanned, from 0.
	// Every print and screen replay among them is used, and one in three
	// of the clean samples, which keeps the classes about balanced.
	Count     int
	Workers   int
	ModelsDir string
	FacesDir  string
	// Progress, if set, is called after each rendered selfie.
	Progress func(done, total int)
}

// Plan lists the items of the first count indices, for the split wanted
// (heldOut) or both (all).
func Plan(gens map[synth.Difficulty]*synth.Generator, count int, keep func(Item) bool) []Item {
	var out []Item
	for i := 0; i < count; i++ {
		d := Difficulties[(i/12)%len(Difficulties)]
		kind := gens[d].AttackFor(i)
		switch {
		case kind == synth.AttackPrint || kind == synth.AttackScreen:
		case kind == "" && (i/2)%3 == 0:
			kind = liveness.KindLive
		default:
			continue
		}
		it := Item{Index: i, Difficulty: d, Kind: kind, HeldOut: HeldOut(i)}
		if keep == nil || keep(it) {
			out = append(out, it)
		}
	}
	return out
}

// Generators makes one synthetic generator per difficulty.
func Generators(o Options) (map[synth.Difficulty]*synth.Generator, error) {
	gens := map[synth.Difficulty]*synth.Generator{}
	for _, d := range Difficulties {
		g, err := synth.New(synth.Options{Definitions: docdefs.Default().Drawn(), Seed: o.Seed, Difficulty: d,
			Attacks: true, FacesDir: o.FacesDir})
		if err != nil {
			return nil, err
		}
		gens[d] = g
	}
	return gens, nil
}

// Selfie is one rendered item.
type Selfie struct {
	Item
	JPEG []byte
}

// Render renders the selfies of items, in parallel, in the order given.
func Render(ctx context.Context, gens map[synth.Difficulty]*synth.Generator, items []Item, o Options) ([]Selfie, error) {
	out := make([]Selfie, len(items))
	err := parallel(ctx, len(items), o.Workers, o.Progress, func(i int) error {
		it := items[i]
		s, err := gens[it.Difficulty].Sample(ctx, it.Index)
		if err != nil {
			return fmt.Errorf("sample %d: %w", it.Index, err)
		}
		out[i] = Selfie{Item: it, JPEG: s.Selfie}
		return nil
	})
	return out, err
}

// Features are the feature vectors of one selfie: the frame as captured
// and a close-up. FaceFound is false when the detector found no face
// (then there are no vectors).
type Features struct {
	Item
	FaceFound bool
	Full      []float64
	Close     []float64
	// Duration is decode, face detection and both extractions.
	Duration time.Duration
}

// CloseUp crops img to the face widened by a factor of 1.5 to 2.5 (drawn
// from the index), the frame an attacker gets by holding the print or the
// phone close enough to hide its edges. Training on both framings keeps
// the classifier from leaning on the frame alone; live selfies get the
// same crop, so the crop itself says nothing.
func CloseUp(img image.Image, face image.Rectangle, index int) (image.Image, image.Rectangle) {
	k := 1.5 + math.Mod(float64(index)*0.6180339887, 1)
	dx, dy := int(float64(face.Dx())*(k-1)/2), int(float64(face.Dy())*(k-1)/2)
	r := image.Rect(face.Min.X-dx, face.Min.Y-dy, face.Max.X+dx, face.Max.Y+dy).Intersect(img.Bounds())
	return imaging.Crop(img, r), face.Sub(r.Min)
}

// Extract decodes each selfie, finds its face and computes both feature
// vectors, in parallel.
func Extract(ctx context.Context, det *liveness.Detector, selfies []Selfie, o Options) ([]Features, error) {
	out := make([]Features, len(selfies))
	err := parallel(ctx, len(selfies), o.Workers, nil, func(i int) error {
		f, err := features(ctx, det, selfies[i])
		out[i] = f
		return err
	})
	return out, err
}

func features(ctx context.Context, det *liveness.Detector, s Selfie) (Features, error) {
	t := time.Now()
	f := Features{Item: s.Item}
	img, err := facerec.Decode(s.JPEG)
	if err != nil {
		return f, fmt.Errorf("sample %d: %w", s.Index, err)
	}
	face, ok, err := det.DetectFace(ctx, img)
	if err != nil || !ok {
		f.Duration = time.Since(t)
		return f, err
	}
	if f.Full, err = liveness.Extract(img, face); err != nil {
		return f, fmt.Errorf("sample %d: %w", s.Index, err)
	}
	c, cf := CloseUp(img, face, s.Index)
	if f.Close, err = liveness.Extract(c, cf); err != nil {
		return f, fmt.Errorf("sample %d close-up: %w", s.Index, err)
	}
	f.FaceFound = true
	f.Duration = time.Since(t)
	return f, nil
}

// parallel runs fn(0..n-1) on workers goroutines and returns the first
// error; it stops handing out work once one fails or ctx ends.
func parallel(ctx context.Context, n, workers int, progress func(int, int), fn func(int) error) error {
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan int)
	var (
		mu    sync.Mutex
		first error
		done  int
		wg    sync.WaitGroup
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				err := fn(i)
				mu.Lock()
				if err != nil && first == nil {
					first = err
					cancel()
				}
				done++
				if progress != nil {
					progress(done, n)
				}
				mu.Unlock()
			}
		}()
	}
	for i := 0; i < n; i++ {
		select {
		case jobs <- i:
			continue
		case <-ctx.Done():
		}
		break
	}
	close(jobs)
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}
