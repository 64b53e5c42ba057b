package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
)

func init() {
	Register(&Command{Path: "docdefs list", Summary: "list the document definitions", Run: runDocdefsList})
	Register(&Command{Path: "docdefs show", Summary: "show one document definition (--json for all of it)", Run: runDocdefsShow})
}

// definitions returns the embedded definitions, with a user's directory on
// top when dir is set.
func definitions(dir string) (*docdefs.Registry, error) {
	if dir == "" {
		return docdefs.Default(), nil
	}
	r, err := docdefs.LoadDir(dir)
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	return r, nil
}

func runDocdefsList(_ context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "docdefs list")
	dir := fs.String("docdefs", "", "folder of extra document definitions (YAML)")
	if err := Parse(fs, args); err != nil {
		return err
	}
	reg, err := definitions(*dir)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CONFIG\tDOCUMENT\tCOUNTRY\tKIND\tSIDES\tFIELDS\tMRZ\tBARCODE\tLAYOUT")
	for _, d := range reg.All() {
		mrz, barcode, layout := "-", "-", "measured"
		if d.MRZ != nil {
			mrz = d.MRZ.Format
		}
		if d.Barcode != nil {
			barcode = d.Barcode.Kind
		}
		switch {
		case d.Generic():
			// Any issuer's document of the MRZ format: zones in ICAO order.
			layout = "generic"
		case d.Approximate:
			layout = "approximate"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", d.Config, d.DisplayName, d.Country, d.Kind,
			strings.Join(d.Sides, "+"), len(d.FieldSchema), mrz, barcode, layout)
	}
	return tw.Flush()
}

func runDocdefsShow(_ context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "docdefs show")
	asJSON := fs.Bool("json", false, "print the whole definition as JSON")
	dir := fs.String("docdefs", "", "folder of extra document definitions (YAML)")
	config, rest := splitPositional(args)
	if err := Parse(fs, rest); err != nil {
		return err
	}
	if config == "" && fs.NArg() > 0 {
		config = fs.Arg(0)
	}
	if config == "" {
		return Usagef("usage: tambua docdefs show CONFIG [--json]")
	}
	reg, err := definitions(*dir)
	if err != nil {
		return err
	}
	d, ok := reg.Definition(config)
	if !ok {
		return Usagef("unknown config %q (see tambua docdefs list)", config)
	}
	if *asJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(d)
	}
	return printDefinition(env, d)
}

func printDefinition(env *Env, d *idv.DocumentDefinition) error {
	fmt.Fprintf(env.Stdout, "%s (%s), %s %s, %gx%g mm\n", d.DisplayName, d.Config, d.CountryName, d.Kind, d.Size.WidthMM, d.Size.HeightMM)
	tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FIELD\tTYPE\tSIDE\tLABEL\tPATTERN")
	for _, name := range d.FieldSchema {
		f, _ := d.Field(name)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", f.Name, f.Type, f.Zone.Side, f.Label, f.Pattern)
	}
	return tw.Flush()
}

// splitPositional takes a leading positional argument off args, so that
// "show CONFIG --json" and "show --json CONFIG" both work.
func splitPositional(args []string) (string, []string) {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		return args[0], args[1:]
	}
	return "", args
}
