package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"os"
	"path/filepath"

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
		img := ocr.Annotate(card.Image, side, d, ex)
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
