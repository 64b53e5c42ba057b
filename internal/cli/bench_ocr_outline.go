package cli

import (
	"context"
	"fmt"
	"runtime"
	"text/tabwriter"
	"time"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/testkit/synth"
	"github.com/tambua/tambua/vision"
)

// outlineBench measures only the capture pipeline (decode, find, rectify,
// upright) on synth captures, without tesseract: a run over all definitions
// takes seconds rather than minutes, which is what tuning the card finder
// needs.
func (b *ocrBench) outlineLevel(ctx context.Context, lv string, defs []*idv.DocumentDefinition, n int, seed uint64, w *tabwriter.Writer) error {
	tallies := make([]benchTally, len(defs))
	err := eachSynthSample(ctx, lv, b.variant, defs, n, seed, func(idx, di int, def *idv.DocumentDefinition, smp *synth.Sample) error {
		t := &tallies[di]
		t.cards++
		for _, side := range def.Sides {
			data, tc := smp.Front, smp.Truth.Capture.Front
			if side == "back" {
				data, tc = smp.Back, smp.Truth.Capture.Back
			}
			if tc == nil {
				continue
			}
			runtime.GC()
			start, cpu0 := time.Now(), processCPU()
			var card *vision.Card
			img, err := vision.Decode(data)
			if err == nil {
				card, err = vision.Rectify(img, def, side)
			}
			t.durations = append(t.durations, time.Since(start))
			t.cpu = append(t.cpu, processCPU()-cpu0)
			t.sides++
			located, upright, off := cornerMatch(card, &tc.Corners)
			if located {
				t.located++
			}
			if upright {
				t.upright++
			}
			if !upright && b.verbose {
				fmt.Fprintf(b.env.Stderr, "%s/%s/%s#%d %s: outline located %v upright %v (corner error %.1f %% of the long side)\n",
					lv, b.variant, def.Config, idx, side, located, upright, 100*off)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	printTallies(w, b.rowPrefix(lv), defs, tallies, outlineRow)
	return w.Flush()
}

func outlineRow(t *benchTally) string {
	return fmt.Sprintf("%d\t%d\t%s\t%s\t%s", t.cards, t.sides, pct(t.located, t.sides), pct(t.upright, t.sides), times(t))
}
