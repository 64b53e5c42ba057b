package cli

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"time"

	"github.com/tambua/tambua/internal/bench"
	"github.com/tambua/tambua/mrz"
)

func init() {
	Register(&Command{
		Path:    "mrz",
		Summary: "parse MRZ text from FILE or stdin, or read it from an image (--image FILE)",
		Run:     runMRZ,
	})
}

func runMRZ(ctx context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "mrz")
	imagePath := fs.String("image", "", "locate and read the MRZ in this image (JPEG or PNG)")
	noRepair := fs.Bool("no-repair", false, "report check digits as printed, without OCR repair")
	font := fs.String("font", mrz.DefaultFont, "OCR-B font the glyph templates are rendered from")
	if err := Parse(fs, args); err != nil {
		return err
	}
	opt := mrz.Options{Now: time.Now(), Repair: !*noRepair}
	var m *mrz.MRZ
	if *imagePath != "" {
		if fs.NArg() > 0 {
			return Usagef("give either --image FILE or a text FILE, not both")
		}
		img, err := bench.DecodeFile(*imagePath)
		if err != nil {
			return Usagef("%v", err)
		}
		rd, err := mrz.NewReader(mrz.WithFont(*font)).Read(ctx, img)
		if errors.Is(err, mrz.ErrNotFound) {
			return Usagef("%s: no MRZ found", *imagePath)
		}
		if err != nil {
			return err
		}
		if m, err = mrz.Parse(rd.Lines, opt); err != nil {
			return Usagef("%s: %v", *imagePath, err)
		}
	} else {
		var in io.Reader = env.Stdin
		name := "stdin"
		switch fs.NArg() {
		case 0:
		case 1:
			f, err := os.Open(fs.Arg(0))
			if err != nil {
				return Usagef("%v", err)
			}
			defer f.Close()
			in, name = f, fs.Arg(0)
		default:
			return Usagef("at most one FILE")
		}
		text, err := io.ReadAll(io.LimitReader(in, 1<<16))
		if err != nil {
			return Usagef("reading %s: %v", name, err)
		}
		if m, err = mrz.ParseText(string(text), opt); err != nil {
			return Usagef("%s: %v", name, err)
		}
		m.Lines = nil // the caller has them
	}
	enc := json.NewEncoder(env.Stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(m)
}
