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

// The admin commands are the operator's door to the same service code as
// the web console (docs/cli.md). Each takes --data, the folder `tambua
// serve` uses, or --db.

func init() {
	Register(&Command{Path: "org create", Summary: "create an organisation; prints its id", Run: runOrgCreate})
	Register(&Command{Path: "clients create", Summary: "create an API client; prints client_id and the secret, once", Run: runClientsCreate})
	Register(&Command{Path: "workflows create", Summary: "create a workflow from a YAML or JSON file; prints its id and refresh token", Run: runWorkflowsCreate})
	Register(&Command{Path: "workflows edit", Summary: "edit a workflow from a file (document types and required checks stay)", Run: runWorkflowsEdit})
	Register(&Command{Path: "workflows duplicate", Summary: "duplicate a workflow under a new name", Run: runWorkflowsDuplicate})
	Register(&Command{Path: "workflows archive", Summary: "archive a workflow", Run: statusCommand("workflows archive", idv.WorkflowArchived)})
	Register(&Command{Path: "workflows activate", Summary: "activate a workflow", Run: statusCommand("workflows activate", idv.WorkflowActive)})
	Register(&Command{Path: "workflows rotate-token", Summary: "give a workflow a new refresh token (the old one stops working), optionally with a lifetime", Run: runRotateToken})
	Register(&Command{Path: "workflows sdk-token", Summary: "print the JWT given to the SDK for a workflow", Run: runSDKToken})
	Register(&Command{Path: "org approve-admin", Summary: "record an organisation admin's personal verification as accepted after a manual review (docs/console.md)", Run: runOrgApproveAdmin})
	Register(&Command{Path: "units add", Summary: "add units to an organisation's balance; prints the balance", Run: runUnitsAdd})
}

// dataLocation is where a command finds the server's data: the data
// folder and, when set, the PostgreSQL database that replaces its SQLite
// file.
type dataLocation struct {
	dir, db *string
	// keysFile and getenv give the signing keys replicas share
	// (sharedKeys).
	keysFile *string
	getenv   func(string) string
}

func dataFlag(fs *flag.FlagSet, env *Env) dataLocation {
	return dataLocation{
		dir: fs.String("data", envOr(env, "TAMBUA_DATA", "data"), "data folder of the server (env TAMBUA_DATA)"),
		db:  fs.String("db", env.Getenv("TAMBUA_DB"), "the server's PostgreSQL database (postgres://...) instead of DATA/tambua.db (env TAMBUA_DB)"),
		keysFile: fs.String("keys-file", env.Getenv("TAMBUA_KEYS_FILE"),
			"file holding the signing key replicas share (else env TAMBUA_SIGNING_KEY; required with --db; env TAMBUA_KEYS_FILE)"),
		getenv: env.Getenv,
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

// Results of the admin commands: the text and --json forms of each
// (docs/cli.md). Field names and meanings are stable; fields may be added.
type (
	orgResult struct {
		OrganisationID int64  `json:"organisation_id"`
		Name           string `json:"name"`
	}
	clientResult struct {
		ClientID       string `json:"client_id"`
		ClientSecret   string `json:"client_secret"`
		OrganisationID int64  `json:"organisation_id"`
		Name           string `json:"name"`
	}
	workflowResult struct {
		WorkFlowID   string `json:"work_flow_id"`
		Name         string `json:"name"`
		Status       string `json:"status"`
		Units        int    `json:"units"`
		RefreshToken string `json:"refresh_token"`
		// ExpiresAt is when the refresh token's lifetime ends (RFC 3339);
		// absent when it has none.
		ExpiresAt string `json:"refresh_token_expires_at,omitempty"`
	}
	statusResult struct {
		WorkFlowID string `json:"work_flow_id"`
		Status     string `json:"status"`
	}
	sdkTokenResult struct {
		WorkFlowID string `json:"work_flow_id"`
		Config     string `json:"config"`
		ExpiresAt  string `json:"expires_at"`
		SDKToken   string `json:"sdk_token"`
	}
	unitsResult struct {
		OrganisationID int64 `json:"organisation_id"`
		Added          int64 `json:"added"`
		Balance        int64 `json:"balance"`
	}
)

// text: the bare token, which scripts pass on whole.
func (r sdkTokenResult) text() string { return r.SDKToken }

func newWorkflowResult(w server.Workflow) workflowResult {
	r := workflowResult{WorkFlowID: w.ID, Name: w.Definition.Name, Status: w.Status, Units: w.Definition.Cost(), RefreshToken: w.RefreshToken}
	if at, ok := server.RefreshTokenExpiry(w.RefreshToken); ok {
		r.ExpiresAt = at.UTC().Format(time.RFC3339)
	}
	return r
}

func runOrgCreate(ctx context.Context, env *Env, args []string) error {
	c := newAdminCommand(env, "org create")
	name := c.String("name", "Organisation", "organisation name")
	if _, err := c.parse(args, 0); err != nil {
		return err
	}
	return c.run(ctx, adminError, func(_ backend, admin *server.Admin) (any, error) {
		o, err := admin.CreateOrganisation(ctx, *name)
		return orgResult{OrganisationID: o.ID, Name: o.Name}, err
	})
}

func runClientsCreate(ctx context.Context, env *Env, args []string) error {
	c := newAdminCommand(env, "clients create").withOrg()
	name := c.String("name", "", "client name")
	if _, err := c.parse(args, 0); err != nil {
		return err
	}
	err := c.run(ctx, adminError, func(_ backend, admin *server.Admin) (any, error) {
		cl, secret, err := admin.CreateClient(ctx, *c.org, *name)
		return clientResult{ClientID: cl.ID, ClientSecret: secret, OrganisationID: cl.OrganisationID, Name: cl.Name}, err
	})
	if err == nil {
		fmt.Fprintln(env.Stderr, "The secret is shown this once; it is stored only as a hash.")
	}
	return err
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

func runWorkflowsCreate(ctx context.Context, env *Env, args []string) error {
	c := newAdminCommand(env, "workflows create")
	client := c.String("client", "", "client_id (required)")
	secret := c.String("secret", env.Getenv("TAMBUA_CLIENT_SECRET"), "the client's secret, validated and not stored (env TAMBUA_CLIENT_SECRET)")
	file := c.String("file", "", "workflow file, YAML or JSON (required)")
	docdefsDir := c.String("docdefs", "", "folder of extra document definitions the server uses (YAML)")
	tokenTTL := c.Duration("token-ttl", 0, "lifetime of the workflow's refresh token (0: none)")
	if _, err := c.parse(args, 0); err != nil {
		return err
	}
	if *tokenTTL < 0 {
		return Usagef("--token-ttl must not be negative")
	}
	if *client == "" {
		return Usagef("--client is required")
	}
	def, err := readWorkflowFile(*file, *docdefsDir)
	if err != nil {
		return err
	}
	return c.run(ctx, adminError, func(_ backend, admin *server.Admin) (any, error) {
		w, err := admin.CreateWorkflow(ctx, *client, *secret, *def)
		if err == nil && *tokenTTL > 0 {
			// The token made at creation never leaves this process.
			w, err = admin.RotateRefreshToken(ctx, w.ID, *tokenTTL)
		}
		return newWorkflowResult(w), err
	})
}

func runWorkflowsEdit(ctx context.Context, env *Env, args []string) error {
	c := newAdminCommand(env, "workflows edit").withID("work_flow_id", "work_flow_id")
	file := c.String("file", "", "the whole edited workflow, YAML or JSON (required)")
	docdefsDir := c.String("docdefs", "", "folder of extra document definitions the server uses (YAML)")
	id, err := c.parseID(args)
	if err != nil {
		return err
	}
	def, err := readWorkflowFile(*file, *docdefsDir)
	if err != nil {
		return err
	}
	return c.run(ctx, adminError, func(_ backend, admin *server.Admin) (any, error) {
		w, err := admin.EditWorkflow(ctx, id, *def)
		return newWorkflowResult(w), err
	})
}

func runWorkflowsDuplicate(ctx context.Context, env *Env, args []string) error {
	c := newAdminCommand(env, "workflows duplicate").withID("work_flow_id", "work_flow_id to copy")
	name := c.String("name", "", "name of the copy (required)")
	secret := c.String("secret", env.Getenv("TAMBUA_CLIENT_SECRET"), "the client's secret (env TAMBUA_CLIENT_SECRET)")
	id, err := c.parseID(args)
	if err != nil {
		return err
	}
	if *name == "" {
		return Usagef("--name is required")
	}
	return c.run(ctx, adminError, func(_ backend, admin *server.Admin) (any, error) {
		w, err := admin.DuplicateWorkflow(ctx, id, *secret, *name)
		return newWorkflowResult(w), err
	})
}

func statusCommand(path, status string) func(context.Context, *Env, []string) error {
	return func(ctx context.Context, env *Env, args []string) error {
		c := newAdminCommand(env, path).withID("work_flow_id", "work_flow_id")
		id, err := c.parseID(args)
		if err != nil {
			return err
		}
		return c.run(ctx, adminError, func(_ backend, admin *server.Admin) (any, error) {
			w, err := admin.SetWorkflowStatus(ctx, id, status)
			return statusResult{WorkFlowID: w.ID, Status: w.Status}, err
		})
	}
}

func runRotateToken(ctx context.Context, env *Env, args []string) error {
	c := newAdminCommand(env, "workflows rotate-token").withID("work_flow_id", "work_flow_id")
	ttl := c.Duration("ttl", 0, "lifetime of the new refresh token (0: none)")
	id, err := c.parseID(args)
	if err != nil {
		return err
	}
	return c.run(ctx, adminError, func(_ backend, admin *server.Admin) (any, error) {
		w, err := admin.RotateRefreshToken(ctx, id, *ttl)
		return newWorkflowResult(w), err
	})
}

func runSDKToken(ctx context.Context, env *Env, args []string) error {
	c := newAdminCommand(env, "workflows sdk-token").withID("work_flow_id", "work_flow_id")
	apiURL := c.String("api-url", "http://127.0.0.1:8080/postdata", "address of /postdata the SDK calls")
	config := c.String("config", "", "document type (default: the workflow's first)")
	ttl := c.Duration("ttl", 24*time.Hour, "lifetime of the SDK token")
	id, err := c.parseID(args)
	if err != nil {
		return err
	}
	if *ttl <= 0 {
		return Usagef("--ttl must be positive")
	}
	return c.run(ctx, adminError, func(st backend, admin *server.Admin) (any, error) {
		w, err := st.Workflow(ctx, id)
		if err != nil {
			return nil, err
		}
		if *config == "" {
			*config = w.Definition.DocumentTypes[0]
		}
		now := time.Now()
		tok, err := admin.SDKToken(w, *apiURL, *config, *ttl)
		return sdkTokenResult{WorkFlowID: w.ID, Config: *config, ExpiresAt: now.Add(*ttl).UTC().Format(time.RFC3339), SDKToken: tok}, err
	})
}

func runUnitsAdd(ctx context.Context, env *Env, args []string) error {
	c := newAdminCommand(env, "units add")
	org := c.Int64("org", 0, "organisation id (required)")
	pos, err := c.parse(args, 1)
	if err != nil {
		return err
	}
	if *org <= 0 || len(pos) != 1 {
		return Usagef("usage: tambua units add --org ID N")
	}
	n, err := strconv.ParseInt(pos[0], 10, 64)
	if err != nil || n == 0 {
		return Usagef("N must be a non-zero integer, got %q", pos[0])
	}
	return c.run(ctx, adminError, func(_ backend, admin *server.Admin) (any, error) {
		bal, err := admin.AddUnits(ctx, *org, n)
		return unitsResult{OrganisationID: *org, Added: n, Balance: bal}, err
	})
}

func runOrgApproveAdmin(ctx context.Context, env *Env, args []string) error {
	c := newAdminCommand(env, "org approve-admin")
	org := c.Int64("org", 0, "organisation id (required)")
	if _, err := c.parse(args, 0); err != nil {
		return err
	}
	if *org <= 0 {
		return Usagef("usage: tambua org approve-admin --org ID")
	}
	st, admin, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	p, err := admin.ApproveAdminVerification(ctx, *org)
	if err != nil {
		return adminError(err)
	}
	return c.print(struct {
		OrganisationID int64  `json:"organisation_id"`
		Decision       string `json:"admin_verification_decision"`
	}{p.OrganisationID, p.AdminVerificationDecision})
}
