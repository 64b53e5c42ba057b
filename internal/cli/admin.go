package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"time"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/server"
)

// The admin commands stand in for the console until it exists. Each takes
// --data, the folder `tambua serve` uses.

func init() {
	Register(&Command{Path: "org create", Summary: "create an organisation; prints its id", Run: runOrgCreate})
	Register(&Command{Path: "clients create", Summary: "create an API client; prints client_id and the secret, once", Run: runClientsCreate})
	Register(&Command{Path: "workflows create", Summary: "create a workflow from a YAML or JSON file; prints its id and refresh token", Run: runWorkflowsCreate})
	Register(&Command{Path: "workflows edit", Summary: "edit a workflow from a file (document types and required checks stay)", Run: runWorkflowsEdit})
	Register(&Command{Path: "workflows duplicate", Summary: "duplicate a workflow under a new name", Run: runWorkflowsDuplicate})
	Register(&Command{Path: "workflows archive", Summary: "archive a workflow", Run: statusCommand("workflows archive", idv.WorkflowArchived)})
	Register(&Command{Path: "workflows activate", Summary: "activate a workflow", Run: statusCommand("workflows activate", idv.WorkflowActive)})
	Register(&Command{Path: "workflows sdk-token", Summary: "print the JWT given to the SDK for a workflow", Run: runSDKToken})
	Register(&Command{Path: "units add", Summary: "add units to an organisation's balance; prints the balance", Run: runUnitsAdd})
}

// dataLocation is where a command finds the server's data: the data
// folder and, when set, the PostgreSQL database that replaces its SQLite
// file.
type dataLocation struct {
	dir, db *string
}

func dataFlag(fs *flag.FlagSet, env *Env) dataLocation {
	return dataLocation{
		dir: fs.String("data", envOr(env, "TAMBUA_DATA", "data"), "data folder of the server (env TAMBUA_DATA)"),
		db:  fs.String("db", env.Getenv("TAMBUA_DB"), "the server's PostgreSQL database (postgres://...) instead of DATA/tambua.db (env TAMBUA_DB)"),
	}
}

// adminError turns a store or validation error into a usage error (exit
// 2) when it is the caller's fault.
func adminError(err error) error {
	var ve *idv.ValidationError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, server.ErrNotFound), errors.Is(err, server.ErrClientNotFound),
		errors.Is(err, server.ErrInvalidClientSecret), errors.Is(err, server.ErrClientInactive),
		errors.Is(err, server.ErrWorkflowName), errors.Is(err, server.ErrInsufficientUnits),
		errors.As(err, &ve), idv.ErrorCode(err) == idv.EInvalid:
		return &UsageError{Err: err}
	}
	return err
}

func runOrgCreate(ctx context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "org create")
	data := dataFlag(fs, env)
	name := fs.String("name", "Organisation", "organisation name")
	if err := Parse(fs, args); err != nil {
		return err
	}
	st, admin, _, err := openData(ctx, data)
	if err != nil {
		return err
	}
	defer st.Close()
	o, err := admin.CreateOrganisation(ctx, *name)
	if err != nil {
		return adminError(err)
	}
	fmt.Fprintf(env.Stdout, "organisation_id %d\n", o.ID)
	return nil
}

func runClientsCreate(ctx context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "clients create")
	data := dataFlag(fs, env)
	org := fs.Int64("org", 0, "organisation id (required)")
	name := fs.String("name", "", "client name")
	if err := Parse(fs, args); err != nil {
		return err
	}
	if *org <= 0 {
		return Usagef("--org is required")
	}
	st, admin, _, err := openData(ctx, data)
	if err != nil {
		return err
	}
	defer st.Close()
	c, secret, err := admin.CreateClient(ctx, *org, *name)
	if err != nil {
		return adminError(err)
	}
	fmt.Fprintf(env.Stdout, "client_id     %s\nclient_secret %s\n", c.ID, secret)
	fmt.Fprintln(env.Stderr, "The secret is shown this once; it is stored only as a hash.")
	return nil
}

// readWorkflowFile reads a workflow file and checks its document types
// against the definitions the server will use (--docdefs).
func readWorkflowFile(path, docdefsDir string) (*idv.Workflow, error) {
	if path == "" {
		return nil, Usagef("--file is required")
	}
	defs, err := definitions(docdefsDir)
	if err != nil {
		return nil, err
	}
	return readWorkflow(path, defs)
}

func printWorkflow(env *Env, w server.Workflow) {
	fmt.Fprintf(env.Stdout, "work_flow_id  %s\nstatus        %s\nunits         %d\nrefresh_token %s\n",
		w.ID, w.Status, w.Definition.Cost(), w.RefreshToken)
}

func runWorkflowsCreate(ctx context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "workflows create")
	data := dataFlag(fs, env)
	client := fs.String("client", "", "client_id (required)")
	secret := fs.String("secret", env.Getenv("TAMBUA_CLIENT_SECRET"), "the client's secret, validated and not stored (env TAMBUA_CLIENT_SECRET)")
	file := fs.String("file", "", "workflow file, YAML or JSON (required)")
	docdefsDir := fs.String("docdefs", "", "folder of extra document definitions the server uses (YAML)")
	if err := Parse(fs, args); err != nil {
		return err
	}
	if *client == "" {
		return Usagef("--client is required")
	}
	def, err := readWorkflowFile(*file, *docdefsDir)
	if err != nil {
		return err
	}
	st, admin, _, err := openData(ctx, data)
	if err != nil {
		return err
	}
	defer st.Close()
	w, err := admin.CreateWorkflow(ctx, *client, *secret, *def)
	if err != nil {
		return adminError(err)
	}
	printWorkflow(env, w)
	return nil
}

func runWorkflowsEdit(ctx context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "workflows edit")
	data := dataFlag(fs, env)
	id := fs.String("id", "", "work_flow_id (required)")
	file := fs.String("file", "", "the whole edited workflow, YAML or JSON (required)")
	docdefsDir := fs.String("docdefs", "", "folder of extra document definitions the server uses (YAML)")
	if err := Parse(fs, args); err != nil {
		return err
	}
	if *id == "" {
		return Usagef("--id is required")
	}
	def, err := readWorkflowFile(*file, *docdefsDir)
	if err != nil {
		return err
	}
	st, admin, _, err := openData(ctx, data)
	if err != nil {
		return err
	}
	defer st.Close()
	w, err := admin.EditWorkflow(ctx, *id, *def)
	if err != nil {
		return adminError(err)
	}
	printWorkflow(env, w)
	return nil
}

func runWorkflowsDuplicate(ctx context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "workflows duplicate")
	data := dataFlag(fs, env)
	id := fs.String("id", "", "work_flow_id to copy (required)")
	name := fs.String("name", "", "name of the copy (required)")
	secret := fs.String("secret", env.Getenv("TAMBUA_CLIENT_SECRET"), "the client's secret (env TAMBUA_CLIENT_SECRET)")
	if err := Parse(fs, args); err != nil {
		return err
	}
	if *id == "" || *name == "" {
		return Usagef("--id and --name are required")
	}
	st, admin, _, err := openData(ctx, data)
	if err != nil {
		return err
	}
	defer st.Close()
	w, err := admin.DuplicateWorkflow(ctx, *id, *secret, *name)
	if err != nil {
		return adminError(err)
	}
	printWorkflow(env, w)
	return nil
}

func statusCommand(path, status string) func(context.Context, *Env, []string) error {
	return func(ctx context.Context, env *Env, args []string) error {
		fs := NewFlags(env, path)
		data := dataFlag(fs, env)
		id := fs.String("id", "", "work_flow_id (required)")
		if err := Parse(fs, args); err != nil {
			return err
		}
		if *id == "" {
			return Usagef("--id is required")
		}
		st, admin, _, err := openData(ctx, data)
		if err != nil {
			return err
		}
		defer st.Close()
		w, err := admin.SetWorkflowStatus(ctx, *id, status)
		if err != nil {
			return adminError(err)
		}
		fmt.Fprintf(env.Stdout, "work_flow_id %s\nstatus       %s\n", w.ID, w.Status)
		return nil
	}
}

func runSDKToken(ctx context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "workflows sdk-token")
	data := dataFlag(fs, env)
	id := fs.String("id", "", "work_flow_id (required)")
	apiURL := fs.String("api-url", "http://127.0.0.1:8080/postdata", "address of /postdata the SDK calls")
	config := fs.String("config", "", "document type (default: the workflow's first)")
	ttl := fs.Duration("ttl", 24*time.Hour, "lifetime of the SDK token")
	if err := Parse(fs, args); err != nil {
		return err
	}
	if *id == "" {
		return Usagef("--id is required")
	}
	st, admin, _, err := openData(ctx, data)
	if err != nil {
		return err
	}
	defer st.Close()
	w, err := st.Workflow(ctx, *id)
	if err != nil {
		return adminError(err)
	}
	if *config == "" {
		*config = w.Definition.DocumentTypes[0]
	}
	tok, err := admin.SDKToken(w, *apiURL, *config, *ttl)
	if err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, tok)
	return nil
}

func runUnitsAdd(ctx context.Context, env *Env, args []string) error {
	fs := NewFlags(env, "units add")
	data := dataFlag(fs, env)
	org := fs.Int64("org", 0, "organisation id (required)")
	if err := Parse(fs, args); err != nil {
		return err
	}
	if *org <= 0 || fs.NArg() != 1 {
		return Usagef("usage: tambua units add --org ID N")
	}
	n, err := strconv.ParseInt(fs.Arg(0), 10, 64)
	if err != nil || n == 0 {
		return Usagef("N must be a non-zero integer, got %q", fs.Arg(0))
	}
	st, admin, _, err := openData(ctx, data)
	if err != nil {
		return err
	}
	defer st.Close()
	bal, err := admin.AddUnits(ctx, *org, n)
	if err != nil {
		return adminError(err)
	}
	fmt.Fprintf(env.Stdout, "organisation_id %d\nbalance         %d\n", *org, bal)
	return nil
}
