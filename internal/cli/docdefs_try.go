package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"github.com/disintegration/imaging"
	"github.com/tambua/tambua/checks/ocr"
	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/vision"
)

func init() {
	Register(&Command{Path: "docdefs try", Summary: "read sample photos with a definition and draw what was found (label and value boxes, text read)", Run: runDocdefsTry})
	Register(&Command{Path: "docdefs validate", Summary: "check definition files (YAML) and report every rule they break", Run: runDocdefsValidate})
}

// tryResult is the JSON written by docdefs try.
type tryResult struct {
	Config   string                 `json:"config"`
	Fields   map[string]string      `json:"fields"`
	Unread   []string               `json:"unread"`
	Reasons  []string               `json:"reasons"`
	Located  map[string]ocr.Located `json:"located"`
	Words    map[string][]ocr.Word  `json:"words"`
	MRZ      string                 `json:"mrz,omitempty"`
	FromMRZ  []string               `json:"from_mrz,omitempty"`
	Conflict []string               `json:"conflicts"`
}

func runDocdefsTry(ctx context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "docdefs try")
	config := fs.String("config", "", "definition to read the sample as")
	front := fs.String("front", "", "photo or scan of the front")
	back := fs.String("back", "", "photo or scan of the back (optional)")
	out := fs.String("out", "", "folder for the annotated sides and result.json")
	dir := fs.String("docdefs", "", "folder of extra document definitions (YAML)")
	if err := Parse(fs, args); err != nil {
		return err
	}
	if *config == "" || *front == "" || *out == "" {
		return Usagef("usage: tambua docdefs try --config NAME --front F [--back B] --out DIR")
	}
	reg, err := definitions(*dir)
	if err != nil {
		return err
	}
	d, ok := reg.Definition(*config)
	if !ok {
		return Usagef("unknown config %q (see tambua docdefs list)", *config)
	}
	imgs := map[string]image.Image{}
	for slot, path := range map[string]string{idv.SlotFront: *front, idv.SlotBack: *back} {
		if path == "" {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		img, err := vision.Decode(data)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		imgs[slot] = img
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	k := ocr.New(ocr.WithWorkers(1), ocr.WithLabelReader(true))
	defer k.Close()
	ex, err := k.Extract(ctx, imgs, []*idv.DocumentDefinition{d}, nil)
	if err != nil {
		var ie *ocr.InputError
		if errors.As(err, &ie) {
			return fmt.Errorf("%s: %s", ie.Slot, ie.Reason)
		}
		return err
	}
	res := tryResult{Config: d.Config, Fields: ex.Fields, Unread: ex.Quality.Unread, Reasons: ex.Reasons,
		Located: ex.Located, Words: ex.Words, MRZ: ex.MRZText, FromMRZ: ex.FromMRZ, Conflict: ex.Quality.Conflicts}
	if res.Reasons == nil {
		res.Reasons = []string{}
	}
	for side, card := range ex.Cards {
		if err := imaging.Save(card.Image, filepath.Join(*out, side+"_rectified.png")); err != nil {
			return err
		}
		img := annotate(card.Image, side, d, ex)
		path := filepath.Join(*out, side+".png")
		if err := imaging.Save(img, path); err != nil {
			return err
		}
		fmt.Fprintln(env.Stdout, "wrote", path)
	}
	data, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	path := filepath.Join(*out, "result.json")
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, "wrote", path)
	for _, name := range d.FieldSchema {
		l := ex.Located[name]
		fmt.Fprintf(env.Stdout, "%-22s %-28q %-7s %s\n", name, ex.Fields[name], l.How, l.Raw)
	}
	return nil
}

// annotate draws a side's page reading (grey boxes), each caption found
// (blue), each value (green when valid, red when not) and the text read.
func annotate(src image.Image, side string, d *idv.DocumentDefinition, ex *ocr.Extraction) *image.RGBA {
	b := src.Bounds()
	// A band under the card lists what each field read, so labels on the
	// card stay legible.
	var names []string
	for _, f := range d.Fields {
		if f.Zone.Side == side && f.Fixed == "" {
			names = append(names, f.Name)
		}
	}
	sort.Strings(names)
	band := 16 * (len(names) + 1)
	img := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()+band))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	draw.Draw(img, image.Rect(0, 0, b.Dx(), b.Dy()), src, b.Min, draw.Src)
	px := func(bx *ocr.Box) image.Rectangle {
		return image.Rect(int(bx.X*float64(b.Dx())), int(bx.Y*float64(b.Dy())), int((bx.X+bx.W)*float64(b.Dx())), int((bx.Y+bx.H)*float64(b.Dy())))
	}
	grey := color.RGBA{150, 150, 150, 255}
	blue := color.RGBA{20, 70, 230, 255}
	green := color.RGBA{0, 160, 40, 255}
	red := color.RGBA{220, 20, 20, 255}
	for _, w := range ex.Words[side] {
		rect(img, px(&w.Box), grey, 1)
	}
	for i, name := range names {
		l, ok := ex.Located[name]
		c := red
		if ok && l.Valid {
			c = green
		}
		if ok && l.Label != nil {
			r := px(l.Label)
			rect(img, r, blue, 2)
			text(img, r.Min.X, r.Min.Y-2, name, blue)
		}
		if ok && l.Value != nil {
			r := px(l.Value)
			rect(img, r, c, 2)
			text(img, r.Min.X, r.Max.Y+12, ex.Fields[name], c)
		}
		how := "not found"
		if ok && l.How != "" {
			how = l.How
		}
		text(img, 6, b.Dy()+14+16*i, fmt.Sprintf("%s = %q  (%s; read %s)", name, ex.Fields[name], how, strings.ReplaceAll(l.Raw, "\n", " ")), c)
	}
	return img
}

func rect(img *image.RGBA, r image.Rectangle, c color.Color, t int) {
	for i := 0; i < t; i++ {
		for x := r.Min.X - i; x <= r.Max.X+i; x++ {
			img.Set(x, r.Min.Y-i, c)
			img.Set(x, r.Max.Y+i, c)
		}
		for y := r.Min.Y - i; y <= r.Max.Y+i; y++ {
			img.Set(r.Min.X-i, y, c)
			img.Set(r.Max.X+i, y, c)
		}
	}
}

// text writes s at (x, y) (baseline) on a white backing so it reads over
// the card's artwork.
func text(img *image.RGBA, x, y int, s string, c color.Color) {
	face := basicfont.Face7x13
	w := font.MeasureString(face, s).Ceil()
	draw.Draw(img, image.Rect(x-1, y-11, x+w+1, y+3), image.White, image.Point{}, draw.Src)
	dr := &font.Drawer{Dst: img, Src: image.NewUniform(c), Face: face, Dot: fixed.P(x, y)}
	dr.DrawString(s)
}

// runDocdefsValidate parses definition files (or every *.yaml of a
// folder) and reports each one's broken rules; any error fails the run.
func runDocdefsValidate(_ context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "docdefs validate")
	if err := Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return Usagef("usage: tambua docdefs validate FILE.yaml|DIR ...")
	}
	var files []string
	for _, a := range fs.Args() {
		st, err := os.Stat(a)
		if err != nil {
			return err
		}
		if !st.IsDir() {
			files = append(files, a)
			continue
		}
		for _, pat := range []string{"*.yaml", "*.yml"} {
			m, _ := filepath.Glob(filepath.Join(a, pat))
			files = append(files, m...)
		}
	}
	bad := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if _, err := docdefs.Parse(data); err != nil {
			bad++
			fmt.Fprintf(env.Stdout, "%s: %v\n", f, err)
			continue
		}
		fmt.Fprintf(env.Stdout, "%s: ok\n", f)
	}
	if bad > 0 {
		return fmt.Errorf("%d of %d definitions are invalid", bad, len(files))
	}
	return nil
}
