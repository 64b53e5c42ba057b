package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"

	"github.com/tambua/tambua/server"
	"github.com/tambua/tambua/server/store"
)

// adminCommand is the frame every admin command shares (org, clients,
// workflows, units, reviews, audit; the webhooks commands have their own
// frame, webhookFlags.run, and print JSON only): --data or --db, --json,
// flags accepted before, between and after the positional arguments, and one result printed either as aligned
// "name value" lines or, with --json, as one JSON object with the same
// names (docs/cli.md lists each command's object).
type adminCommand struct {
	*flag.FlagSet
	env  *Env
	data dataLocation
	json *bool
	// org is --org when the command acts inside one organisation
	// (withOrg); parse then requires it.
	org *int64
	// id is --id when the command acts on one object (withID), which
	// may also be given as the one positional argument; idName names
	// it in messages.
	id     *string
	idName string
}

func newAdminCommand(env *Env, path string) *adminCommand {
	fs := NewFlags(env, path)
	return &adminCommand{FlagSet: fs, env: env, data: dataFlag(fs, env), json: jsonFlag(fs)}
}

func jsonFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("json", false, "print the result as one JSON object (docs/cli.md)")
}

// withOrg declares --org, the organisation the command acts in.
func (c *adminCommand) withOrg() *adminCommand {
	c.org = c.Int64("org", 0, "organisation id (required)")
	return c
}

// withID declares --id, the object the command acts on (name is its
// field name, such as work_flow_id); parseID reads it from the flag or
// the one positional argument.
func (c *adminCommand) withID(name, usage string) *adminCommand {
	c.idName = name
	c.id = c.String("id", "", usage+" (required; or give it as the argument)")
	return c
}

// parse parses args and returns the positional arguments, refusing more
// than max of them and a missing --org where the command declared one.
func (c *adminCommand) parse(args []string, max int) ([]string, error) {
	pos, err := parseArgs(c.FlagSet, args, max)
	if err != nil {
		return nil, err
	}
	if c.org != nil && *c.org <= 0 {
		return nil, Usagef("--org is required")
	}
	return pos, nil
}

// parseID parses args of a command declared withID and returns the id,
// given once: as --id or as the one positional argument.
func (c *adminCommand) parseID(args []string) (string, error) {
	pos, err := c.parse(args, 1)
	if err != nil {
		return "", err
	}
	id := *c.id
	switch {
	case id != "" && len(pos) > 0 && pos[0] != id:
		return "", Usagef("give the %s once (--id or an argument)", c.idName)
	case id == "" && len(pos) > 0:
		id = pos[0]
	case id == "":
		return "", Usagef("the %s is required (--id or an argument)", c.idName)
	}
	return id, nil
}

// run opens the store, calls op with it and its Admin, and prints the
// result op returns; op's error goes through explain (adminError,
// reviewError), which words it for the command line.
func (c *adminCommand) run(ctx context.Context, explain func(error) error, op func(st backend, admin *server.Admin) (any, error)) error {
	return openCallPrint(ctx, c.open, explain, op, c.print)
}

// openCallPrint is the skeleton of every admin command (adminCommand.run,
// webhookFlags.run): open the store and the service S the command calls,
// call op, close the store, word op's error through explain or print
// what op returns.
func openCallPrint[S any](ctx context.Context, open func(context.Context) (backend, S, error), explain func(error) error,
	op func(backend, S) (any, error), write func(any) error) error {
	st, svc, err := open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	v, err := op(st, svc)
	if err != nil {
		return explain(err)
	}
	return write(v)
}

// open opens the server's store: SQLite in the data folder, or the
// PostgreSQL database --db names.
func (c *adminCommand) open(ctx context.Context) (backend, *server.Admin, error) {
	st, admin, _, err := openData(ctx, c.data)
	if admin != nil {
		admin.Actor = cliActor("")
	}
	return st, admin, err
}

// print writes the command's result v, a struct whose json tags name its
// fields.
func (c *adminCommand) print(v any) error {
	if *c.json {
		return printJSON(c.env, v)
	}
	return writeFields(c.env.Stdout, v)
}

// textOutput is a result whose text form is not its fields (a bare token
// that scripts read whole).
type textOutput interface{ text() string }

// writeFields writes v's fields as "name value" lines, names padded to
// one column, in field order, leaving out empty omitempty fields: the
// same names and values as the JSON form.
func writeFields(w io.Writer, v any) error {
	if t, ok := v.(textOutput); ok {
		_, err := fmt.Fprintln(w, t.text())
		return err
	}
	rv := reflect.Indirect(reflect.ValueOf(v))
	rt := rv.Type()
	type row struct {
		name  string
		value any
	}
	var rows []row
	width := 0
	for i := range rt.NumField() {
		name, opts, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		f := rv.Field(i)
		if strings.Contains(opts, "omitempty") && f.IsZero() {
			continue
		}
		rows = append(rows, row{name, f.Interface()})
		width = max(width, len(name))
	}
	for _, r := range rows {
		if _, err := fmt.Fprintf(w, "%-*s %v\n", width, r.name, r.value); err != nil {
			return err
		}
	}
	return nil
}

// parseArgs parses fs from args in which flags may come before, between
// and after positional arguments (Go's flag package stops at the first
// positional one), and returns the positional arguments. "--" ends the
// flags; a lone "-" and negative numbers ("-300") are positional. A flag
// that takes a value takes the next argument unless written --name=value.
// More than max positional arguments is a usage error.
func parseArgs(fs *flag.FlagSet, args []string, max int) ([]string, error) {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' || isNumber(a) {
			pos = append(pos, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		f := fs.Lookup(name)
		if f == nil {
			continue // fs.Parse reports it (or -h asks for help)
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			continue
		}
		if i+1 < len(args) {
			i++
			flags = append(flags, args[i])
		}
	}
	if err := Parse(fs, flags); err != nil {
		return nil, err
	}
	if len(pos) > max {
		return nil, Usagef("unexpected argument %q", pos[max])
	}
	return pos, nil
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// auditOf returns the backend's audit log, or an error saying the
// database keeps none (both built-in backends do).
func auditOf(st backend) (store.Audit, error) {
	a, ok := st.(store.Audit)
	if !ok {
		return nil, fmt.Errorf("this database (%T) keeps no audit log or retention", st)
	}
	return a, nil
}

// reviewsOf returns the backend's review queue, or an error saying the
// database has none yet.
func reviewsOf(st backend) (store.Reviews, error) {
	r, ok := st.(store.Reviews)
	if !ok {
		return nil, fmt.Errorf("this database (%T) has no review queue", st)
	}
	return r, nil
}
