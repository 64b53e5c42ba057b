package cli

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"

	"github.com/schollz/progressbar/v3"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/testkit/htmlcards"
)

func init() {
	Register(&Command{
		Path:    "synth html",
		Summary: "render a second, independent corpus: documents drawn as HTML/CSS by headless Chromium, then photographed (docs/synth.md)",
		Run:     runSynthHTML,
	})
}

func runSynthHTML(ctx context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "synth html")
	out := fs.String("out", "", "write one folder per sample here (front.jpg, back.jpg, truth.json)")
	gallery := fs.String("gallery", "", "write a PNG tiling the flat documents here")
	photos := fs.Bool("photos", false, "with --gallery: tile the photos instead of the flat documents")
	style := fs.String("style", "dev", "template style: dev or dev2 (tuning), or eval (held out: measure, never tune on it)")
	count := fs.Int("count", 13, "number of samples (13 covers every definition once)")
	seed := fs.Uint64("seed", 1, "seed")
	config := fs.String("config", "", "render only this document definition (default: cycle through all)")
	difficulty := fs.String("difficulty", "medium", "capture difficulty: easy or medium")
	if err := Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return Usagef("unexpected argument %q", fs.Arg(0))
	}
	if *out == "" && *gallery == "" {
		return Usagef("give --out DIR or --gallery OUT.png")
	}
	if *photos && *gallery == "" {
		return Usagef("--photos is for --gallery")
	}
	if *count < 1 || *count > 100_000 {
		return Usagef("--count %d is out of range", *count)
	}
	st, err := htmlcards.ParseStyle(*style)
	if err != nil {
		return Usagef("%v", err)
	}
	diff, err := htmlcards.ParseDifficulty(*difficulty)
	if err != nil {
		return Usagef("%v", err)
	}
	reg := docdefs.Default()
	defs := reg.Drawn()
	if *config != "" {
		d, ok := reg.Definition(*config)
		if !ok {
			return Usagef("unknown config %q (have %v)", *config, reg.Configs())
		}
		defs = []*idv.DocumentDefinition{d}
	}
	gen, err := htmlcards.New(ctx, htmlcards.Options{Definitions: defs, Style: st, Seed: *seed, Difficulty: diff})
	if errors.Is(err, htmlcards.ErrNoChromium) {
		return Usagef("%v", err)
	}
	if err != nil {
		return err
	}
	defer gen.Close()
	bar := progressbar.NewOptions(*count, progressbar.OptionSetWriter(env.Stderr), progressbar.OptionSetDescription("synth html"),
		progressbar.OptionShowCount(), progressbar.OptionClearOnFinish())
	var samples []*htmlcards.Sample
	for i := 0; i < *count; i++ {
		s, err := gen.Sample(ctx, i)
		if err != nil {
			return err
		}
		if *out != "" {
			if err := s.WriteDir(filepath.Join(*out, fmt.Sprintf("%05d_%s", i, s.Truth.Config))); err != nil {
				return err
			}
		}
		if *gallery != "" {
			samples = append(samples, s)
		}
		_ = bar.Add(1)
	}
	_ = bar.Finish()
	if *gallery != "" {
		var img *image.RGBA
		if *photos {
			if img, err = htmlcards.Gallery(samples); err != nil {
				return err
			}
		} else {
			img = htmlcards.FlatGallery(samples)
		}
		if err := writePNGFile(*gallery, img); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "wrote gallery of %d samples to %s\n", len(samples), *gallery)
	}
	if *out != "" {
		fmt.Fprintf(env.Stdout, "wrote %d samples to %s\n", *count, *out)
	}
	return nil
}

func writePNGFile(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
