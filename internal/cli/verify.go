package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/jpeg"
	"os"
	"path/filepath"
	"strings"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/plugins"
)

func init() {
	Register(&Command{Path: "verify", Summary: "run a verification on image files and print the result JSON", Run: runVerify})
}

// repeated collects a repeatable flag.
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ",") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

// maxImageFile bounds one capture read from disk, as the server bounds an
// upload part.
const maxImageFile = 20 << 20

func runVerify(ctx context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "verify")
	front := fs.String("front", "", "front of the document (required)")
	back := fs.String("back", "", "back of the document (required; for a passport the same file as --front)")
	selfie := fs.String("selfie", "", "selfie of the holder")
	config := fs.String("config", "", "document type, see tambua docdefs list (required)")
	wfFile := fs.String("workflow", "", "workflow file (YAML or JSON)")
	checkList := fs.String("checks", "", "comma-separated checks, instead of --workflow (ocr_extraction first)")
	country := fs.String("country", "", "free-text country label carried to the result")
	requestID := fs.String("request-id", "", "request id (generated when empty)")
	imagesOut := fs.String("images-out", "", "write derived images (front_rectified, id_face...) to this folder")
	docdefsDir := fs.String("docdefs", "", "folder of extra document definitions (YAML)")
	var slots, pluginPaths, sets repeated
	fs.Var(&slots, "slot", "extra capture as NAME=FILE (repeatable)")
	fs.Var(&pluginPaths, "plugin", "custom check plugin program (repeatable)")
	fs.Var(&sets, "set", "check setting as KEY=VALUE, e.g. lists_dir=/var/lib/tambua/lists (repeatable)")
	listsDir := fs.String("lists", "", "sanctions lists folder(s), comma separated (same as --set lists_dir=DIR)")
	if err := Parse(fs, args); err != nil {
		return err
	}
	if *front == "" || *back == "" || *config == "" {
		return Usagef("--front, --back and --config are required")
	}
	if (*wfFile == "") == (*checkList == "") {
		return Usagef("give exactly one of --workflow FILE and --checks a,b,c")
	}
	defs, err := definitions(*docdefsDir)
	if err != nil {
		return err
	}
	if _, ok := defs.Definition(*config); !ok {
		return Usagef("unknown config %q (see tambua docdefs list)", *config)
	}

	files := map[string]string{idv.SlotFront: *front, idv.SlotBack: *back}
	if *selfie != "" {
		files[idv.SlotSelfie] = *selfie
	}
	for _, s := range slots {
		name, file, ok := strings.Cut(s, "=")
		if !ok || !validSlot(name) || file == "" {
			return Usagef("--slot %q: want NAME=FILE with a name of letters, digits and _", s)
		}
		if _, dup := files[name]; dup {
			return Usagef("--slot %q: slot %s is given twice", s, name)
		}
		files[name] = file
	}
	images := map[string]idv.Image{}
	urls := map[string]string{}
	for slot, file := range files {
		img, err := readImageFile(file)
		if err != nil {
			return &UsageError{Err: fmt.Errorf("%s: %w", slot, err)}
		}
		images[slot] = img
		abs, _ := filepath.Abs(file)
		urls[idv.OriginalImageName(slot)] = "file://" + abs
	}

	var wf *idv.Workflow
	if *wfFile != "" {
		if wf, err = readWorkflow(*wfFile, defs); err != nil {
			return err
		}
	} else {
		wf = &idv.Workflow{Name: "command line", DocumentTypes: []string{*config}}
		for _, name := range strings.Split(*checkList, ",") {
			wf.Checks = append(wf.Checks, idv.CheckSpec{Name: strings.TrimSpace(name)})
		}
	}

	settings, err := checkSettingsWith(env, sets)
	if err != nil {
		return err
	}
	if *listsDir != "" {
		settings["lists_dir"] = *listsDir
	}
	plugged, err := loadPlugins(ctx, env, pluginPaths)
	if err != nil {
		return err
	}
	opts := append([]idv.Option{idv.WithDefinitions(defs), idv.WithSettings(settings)}, plugged...)
	eng := idv.New(opts...)
	defer eng.Close()
	prepared, err := eng.Prepare(wf)
	if err != nil {
		return engineError(err)
	}
	in := idv.Input{
		Config: *config, Images: images, RequestID: *requestID, Country: *country,
		ClientID: "cli", WorkflowID: wf.ID, ImageURLs: urls,
	}
	if *imagesOut != "" {
		if err := os.MkdirAll(*imagesOut, 0o755); err != nil {
			return err
		}
		in.StoreImage = func(_ context.Context, name string, img image.Image) (string, error) {
			return writeJPEG(filepath.Join(*imagesOut, name+".jpg"), img)
		}
	}
	res, err := prepared.Verify(ctx, in)
	if err != nil {
		return engineError(err)
	}
	enc := json.NewEncoder(env.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(res)
}

// engineError maps the engine's caller errors to exit status 2.
func engineError(err error) error {
	switch idv.ErrorCode(err) {
	case idv.EInvalid, idv.ENotFound, idv.EUnavailable, idv.ETooLarge:
		return &UsageError{Err: err}
	}
	return err
}

func validSlot(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for _, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

func readImageFile(path string) (idv.Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return idv.Image{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return idv.Image{}, err
	}
	if st.Size() > maxImageFile {
		return idv.Image{}, fmt.Errorf("%s is %d bytes, more than the %d allowed", path, st.Size(), maxImageFile)
	}
	data := make([]byte, st.Size())
	if _, err := f.ReadAt(data, 0); err != nil && st.Size() > 0 {
		return idv.Image{}, err
	}
	return idv.Image{Data: data}, nil
}

func writeJPEG(path string, img image.Image) (string, error) {
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	if err := jpeg.Encode(f, img, &jpeg.Options{Quality: 92}); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	abs, _ := filepath.Abs(path)
	return "file://" + abs, nil
}

// checkSettingsWith is checkSettings with each --set KEY=VALUE applied.
func checkSettingsWith(env *Env, sets []string) (idv.Settings, error) {
	settings := checkSettings(env)
	for _, s := range sets {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" {
			return nil, Usagef("--set %q: want KEY=VALUE", s)
		}
		settings[k] = v
	}
	return settings, nil
}

// loadPlugins starts each --plugin program, as engine options; a program
// that does not start is a usage error.
func loadPlugins(ctx context.Context, env *Env, paths []string) ([]idv.Option, error) {
	var opts []idv.Option
	for _, p := range paths {
		pc, err := plugins.Load(ctx, p, plugins.Options{Stderr: env.Stderr})
		if err != nil {
			return nil, &UsageError{Err: err}
		}
		opts = append(opts, idv.WithChecks(pc))
	}
	return opts, nil
}

// checkSettings are the settings the built-in checks read, from the
// environment: TAMBUA_MODELS (dlib models), TAMBUA_LISTS (sanctions lists).
func checkSettings(env *Env) idv.Settings {
	s := idv.Settings{}
	if v := env.Getenv("TAMBUA_MODELS"); v != "" {
		s["models_dir"] = v
	}
	if v := env.Getenv("TAMBUA_LISTS"); v != "" {
		s["lists_dir"] = v
	}
	return s
}
