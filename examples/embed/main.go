// Command embed shows Tambua used as a library: one engine with the
// built-in checks and the shipped document definitions, one workflow
// prepared once, one verification per run, the result printed as JSON.
//
//	go run ./examples/embed --config generic_passport --front page.jpg
//	go run ./examples/embed --config kenya_national_id --front f.jpg --back b.jpg \
//	    --selfie s.jpg --checks ocr_extraction,face_matching,liveness_detection
//
// Face and liveness checks read the dlib models from TAMBUA_MODELS (make
// setup fetches them into models/).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	_ "github.com/tambua/tambua/checks/standard" // registers the built-in checks
	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "embed:", err)
		os.Exit(2)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("embed", flag.ContinueOnError)
	config := fs.String("config", "generic_passport", "document definition (tambua docdefs list)")
	checks := fs.String("checks", "ocr_extraction,mrz_parsing", "checks in order, comma separated")
	front := fs.String("front", "", "front image (JPEG or PNG)")
	back := fs.String("back", "", "back image")
	selfie := fs.String("selfie", "", "selfie image")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *front == "" {
		return errors.New("--front is required")
	}

	settings := idv.Settings{}
	if dir := os.Getenv("TAMBUA_MODELS"); dir != "" {
		settings["models_dir"] = dir
	}
	// The engine is built once and is safe for concurrent use; a real
	// service keeps it (and the prepared workflow) for its lifetime.
	eng := idv.New(idv.WithDefinitions(docdefs.Default()), idv.WithSettings(settings))
	defer eng.Close()

	wf := &idv.Workflow{Name: "embedded", DocumentTypes: []string{*config}}
	for _, name := range strings.Split(*checks, ",") {
		wf.Checks = append(wf.Checks, idv.CheckSpec{Name: strings.TrimSpace(name)})
	}
	prepared, err := eng.Prepare(wf)
	if err != nil {
		return err
	}

	images := map[string]idv.Image{}
	for slot, file := range map[string]string{idv.SlotFront: *front, idv.SlotBack: *back, idv.SlotSelfie: *selfie} {
		if file == "" {
			continue
		}
		data, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		images[slot] = idv.Image{Data: data}
	}
	res, err := prepared.Verify(ctx, idv.Input{Config: *config, Images: images})
	if err != nil {
		return err
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(res)
}
