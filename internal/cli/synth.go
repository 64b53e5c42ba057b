package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/schollz/progressbar/v3"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/testkit/synth"
)

func init() {
	Register(&Command{
		Path:    "synth",
		Summary: "render a synthetic corpus of document captures, selfies and attacks with ground truth",
		Run:     runSynth,
	})
}

func runSynth(ctx context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "synth")
	out := fs.String("out", "", "write one folder per sample here")
	gallery := fs.String("gallery", "", "write a PNG tiling the samples here")
	count := fs.Int("count", 0, "number of samples (default 24 with --out, 12 with --gallery)")
	seed := fs.Uint64("seed", 1, "seed; the same seed gives byte-identical files")
	config := fs.String("config", "", "render only this document definition (default: cycle through all)")
	defsDir := fs.String("defs", "", "load document definitions from this folder on top of the built-in ones")
	difficulty := fs.String("difficulty", "medium", "capture difficulty: easy, medium or hard")
	attacks := fs.Bool("attacks", false, "make about half the samples attacks (print, screen replay, photo swap, edited field, photocopy, screenshot)")
	attackKinds := fs.String("attack-kinds", "", "with --attacks: cycle through these kinds, comma-separated (any of "+strings.Join(synth.AllAttackKinds, ", ")+"; default the first six)")
	faces := fs.String("faces", synth.DefaultFacesDir, "folder of face photos, one subfolder per person")
	workers := fs.Int("workers", runtime.NumCPU(), "samples rendered in parallel")
	variantName := fs.String("variant", "base", "layout variant: "+variantNames()+" (heldout is for measuring only, docs/synth.md)")
	flat := fs.Bool("flat", false, "with --gallery: tile the flat front and back of each card instead of the photos")
	if err := Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return Usagef("unexpected argument %q", fs.Arg(0))
	}
	if *out == "" && *gallery == "" {
		return Usagef("give --out DIR or --gallery OUT.png")
	}
	if *flat && *gallery == "" {
		return Usagef("--flat is for --gallery")
	}
	if *count == 0 {
		*count = 24
		if *out == "" {
			*count = 12
		}
	}
	if *count < 0 || *count > 1_000_000 {
		return Usagef("--count %d is out of range", *count)
	}
	if *workers < 1 {
		*workers = 1
	}
	diff, err := synth.ParseDifficulty(*difficulty)
	if err != nil {
		return Usagef("%v", err)
	}
	variant, err := synth.ParseVariant(*variantName)
	if err != nil {
		return Usagef("%v", err)
	}
	reg := docdefs.Default()
	if *defsDir != "" {
		if reg, err = docdefs.LoadDir(*defsDir); err != nil {
			return Usagef("%v", err)
		}
	}
	defs := reg.Drawn()
	if *config != "" {
		d, ok := reg.Definition(*config)
		if !ok {
			return Usagef("unknown config %q (have %v)", *config, reg.Configs())
		}
		defs = []*idv.DocumentDefinition{d}
	}
	var kinds []string
	if *attackKinds != "" {
		if !*attacks {
			return Usagef("--attack-kinds is for --attacks")
		}
		kinds = strings.Split(*attackKinds, ",")
	}
	gen, err := synth.New(synth.Options{Definitions: defs, Seed: *seed, Difficulty: diff, Attacks: *attacks, AttackKindsUsed: kinds, FacesDir: *faces, Variant: variant})
	if err != nil {
		return Usagef("%v", err)
	}

	bar := progressbar.NewOptions(*count,
		progressbar.OptionSetWriter(env.Stderr),
		progressbar.OptionSetDescription("synth"),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionClearOnFinish(),
	)
	var samples []*synth.Sample
	if *gallery != "" {
		samples = make([]*synth.Sample, *count)
	}
	err = gen.Render(ctx, *count, *workers, func(i int, s *synth.Sample) error {
		if *out != "" {
			if err := s.WriteDir(filepath.Join(*out, fmt.Sprintf("%05d_%s", i, s.Truth.Config))); err != nil {
				return err
			}
		}
		if samples != nil {
			if !*flat {
				s.FrontCard, s.BackCard = nil, nil
			}
			samples[i] = s
		}
		_ = bar.Add(1)
		return nil
	})
	_ = bar.Finish()
	if err != nil {
		return err
	}
	if *gallery != "" {
		mk := synth.Gallery
		if *flat {
			mk = synth.FlatGallery
		}
		img, err := mk(samples)
		if err != nil {
			return err
		}
		if err := writePNGFile(*gallery, img); err != nil {
			return err
		}
	}
	if *out != "" {
		fmt.Fprintf(env.Stdout, "wrote %d samples to %s\n", *count, *out)
	}
	if *gallery != "" {
		fmt.Fprintf(env.Stdout, "wrote gallery of %d samples to %s\n", *count, *gallery)
	}
	return nil
}

// variantNames lists the layout variants for help texts.
func variantNames() string {
	var names []string
	for _, v := range synth.Variants {
		names = append(names, string(v))
	}
	return strings.Join(names, ", ")
}
