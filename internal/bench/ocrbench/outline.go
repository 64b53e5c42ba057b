package ocrbench

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/bench"
	"github.com/tambua/tambua/internal/testkit/synth"
	"github.com/tambua/tambua/vision"
)

// outlines measures only the capture pipeline (decode, find, rectify,
// upright) on synth captures, without tesseract: a run over all
// definitions takes seconds rather than minutes, which is what tuning the
// card finder needs. The time counted is per side.
func (r *run) outlines(ctx context.Context, l *Level) error {
	return r.eachSynthSample(ctx, l, func(idx, di int, def *idv.DocumentDefinition, smp *synth.Sample) error {
		t := &l.Tallies[di]
		t.Cards++
		for _, side := range def.Sides {
			data, tc := smp.Front, smp.Truth.Capture.Front
			if side == "back" {
				data, tc = smp.Back, smp.Truth.Capture.Back
			}
			if tc == nil {
				continue
			}
			runtime.GC()
			start, cpu0 := time.Now(), bench.ProcessCPU()
			var card *vision.Card
			img, err := vision.Decode(data)
			if err == nil {
				card, err = vision.Rectify(img, def, side)
			}
			t.time(start, cpu0)
			name := fmt.Sprintf("%s/%s/%s#%d %s", l.Level, l.Variant, def.Config, idx, side)
			if r.Results != nil {
				cr := cardResult{Name: name, Outlines: map[string]outline{side: outlineOf(card)}}
				if err != nil {
					cr.Err = err.Error()
				}
				if err := r.writeResult(cr); err != nil {
					return err
				}
			}
			r.outline(t, name, card, &tc.Corners)
		}
		return nil
	})
}

// cornerTolerance is the largest corner error, as a share of the card's
// long side, at which an outline counts as found: 2 % is about 1.7 mm on
// an ID-1 card, within the margin the check adds around each zone.
const cornerTolerance = 0.02

// CornerMatch compares the outline the pipeline found with the truth's
// corners (top-left, top-right, bottom-right, bottom-left of the document
// in the displayed capture). located: the four corners are where the card
// is, in any order; upright: also in the document's order once the card's
// rotation is applied. off is the largest corner error of the best order
// as a share of the long side.
func CornerMatch(card *vision.Card, truth *[4][2]float64) (located, upright bool, off float64) {
	if card == nil || !card.Detection.Found {
		return false, false, math.Inf(1)
	}
	long := math.Max(math.Hypot(truth[1][0]-truth[0][0], truth[1][1]-truth[0][1]),
		math.Hypot(truth[2][0]-truth[1][0], truth[2][1]-truth[1][1]))
	// The quad is of the card before it was turned upright.
	shift := card.Rotation / 90
	errAt := func(s int) float64 {
		worst := 0.0
		for i := 0; i < 4; i++ {
			p := card.Detection.Quad[(i+s)%4]
			worst = math.Max(worst, math.Hypot(p.X-truth[i][0], p.Y-truth[i][1]))
		}
		return worst / long
	}
	best := math.Inf(1)
	for s := 0; s < 4; s++ {
		best = math.Min(best, errAt(s))
	}
	located = best <= cornerTolerance
	return located, errAt(shift) <= cornerTolerance, best
}
