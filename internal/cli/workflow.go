package cli

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/tambua/tambua/idv"
)

func init() {
	Register(&Command{Path: "workflow validate", Summary: "validate a workflow file (YAML or JSON)", Run: runWorkflowValidate})
}

// readWorkflow parses and validates a workflow file, checks its document
// types against the definitions and its steps' parameters with the
// built-in checks (as the server does when a workflow is created); every
// problem is a usage error.
func readWorkflow(path string, defs idv.Definitions) (*idv.Workflow, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	w, err := idv.ParseWorkflow(data)
	if err != nil {
		return nil, &UsageError{Err: fmt.Errorf("%s: %w", path, err)}
	}
	for _, dt := range w.DocumentTypes {
		if _, ok := defs.Definition(dt); !ok {
			return nil, Usagef("%s: document_types: unknown config %q", path, dt)
		}
	}
	// Building a check loads no model, so this costs nothing; a check
	// this build lacks (a plugin) is left to the engine that runs it.
	eng := idv.New()
	defer eng.Close()
	if err := eng.ValidateSteps(w); err != nil {
		return nil, Usagef("%s: %s", path, strings.TrimPrefix(err.Error(), "idv: "))
	}
	return w, nil
}

func runWorkflowValidate(_ context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "workflow validate")
	dir := fs.String("docdefs", "", "folder of extra document definitions (YAML)")
	file, rest := splitPositional(args)
	if err := Parse(fs, rest); err != nil {
		return err
	}
	if file == "" {
		if fs.NArg() == 0 {
			return Usagef("usage: tambua workflow validate FILE")
		}
		file = fs.Arg(0)
	}
	defs, err := definitions(*dir)
	if err != nil {
		return err
	}
	w, err := readWorkflow(file, defs)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "%s: valid workflow %q: %d checks, %d units per verification\n", file, w.Name, len(w.Checks), w.Cost())
	return nil
}
