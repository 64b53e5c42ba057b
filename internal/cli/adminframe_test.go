package cli

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseArgs(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		max     int
		wantPos []string
		wantOrg int64
		wantStr string
		wantB   bool
		wantErr string
	}{
		{name: "flags first", args: []string{"--org", "1", "1000"}, max: 1, wantPos: []string{"1000"}, wantOrg: 1},
		{name: "flags after the argument", args: []string{"1000", "--org", "1", "--name", "x"}, max: 1, wantPos: []string{"1000"}, wantOrg: 1, wantStr: "x"},
		{name: "flags around the argument", args: []string{"--org", "1", "1000", "--name=y", "--json"}, max: 1, wantPos: []string{"1000"}, wantOrg: 1, wantStr: "y", wantB: true},
		{name: "negative number is an argument", args: []string{"--org", "2", "-300"}, max: 1, wantPos: []string{"-300"}, wantOrg: 2},
		{name: "negative number as a flag value", args: []string{"--org=-1", "5"}, max: 1, wantPos: []string{"5"}, wantOrg: -1},
		{name: "value starting with a dash", args: []string{"--name", "-dash-", "7"}, max: 1, wantPos: []string{"7"}, wantStr: "-dash-"},
		{name: "bool flag takes no value", args: []string{"--json", "9"}, max: 1, wantPos: []string{"9"}, wantB: true},
		{name: "bool flag with =false", args: []string{"--json=false", "9"}, max: 1, wantPos: []string{"9"}},
		{name: "double dash ends flags", args: []string{"--org", "3", "--", "--name"}, max: 1, wantPos: []string{"--name"}, wantOrg: 3},
		{name: "lone dash is an argument", args: []string{"-"}, max: 1, wantPos: []string{"-"}},
		{name: "single-dash flags", args: []string{"-org", "4", "8"}, max: 1, wantPos: []string{"8"}, wantOrg: 4},
		{name: "too many arguments", args: []string{"1", "2"}, max: 1, wantErr: `unexpected argument "2"`},
		{name: "no argument wanted", args: []string{"--org", "1", "x"}, max: 0, wantErr: `unexpected argument "x"`},
		{name: "unknown flag", args: []string{"5", "--nope"}, max: 1, wantErr: "flag provided but not defined: -nope"},
		{name: "missing value", args: []string{"5", "--org"}, max: 1, wantErr: "flag needs an argument: -org"},
		{name: "bad value", args: []string{"--org", "one"}, max: 1, wantErr: "invalid value"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			org := fs.Int64("org", 0, "")
			name := fs.String("name", "", "")
			js := fs.Bool("json", false, "")
			pos, err := parseArgs(fs, tc.args, tc.max)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				var ue *UsageError
				assert.ErrorAs(t, err, &ue, "a usage error (exit status 2)")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.wantPos, pos)
			assert.Equal(t, tc.wantOrg, *org)
			assert.Equal(t, tc.wantStr, *name)
			assert.Equal(t, tc.wantB, *js)
		})
	}
}

func TestWriteFields(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, writeFields(&b, workflowResult{WorkFlowID: "wf1", Name: "KYC", Status: "active", Units: 5, RefreshToken: "rt"}))
	assert.Equal(t, "work_flow_id  wf1\nname          KYC\nstatus        active\nunits         5\nrefresh_token rt\n", b.String(),
		"names padded to one column; an empty omitempty field is left out")
	b.Reset()
	require.NoError(t, writeFields(&b, sdkTokenResult{SDKToken: "a.b.c"}))
	assert.Equal(t, "a.b.c\n", b.String(), "a bare token")
}

// TestAdminJSON runs every admin command with --json, with flags placed
// after the positional arguments where it takes one, and checks the
// exact set of names of each object (docs/cli.md) and that the text form
// carries the same values.
func TestAdminJSON(t *testing.T) {
	data := t.TempDir()
	wf := writeFile(t, "wf.yaml", "name: KYC basic\ndocument_types: [kenya_national_id]\nchecks:\n  - name: ocr_extraction\n")
	edited := writeFile(t, "wf2.yaml", "name: KYC edited\ndocument_types: [kenya_national_id]\nchecks:\n  - name: ocr_extraction\n")

	// run runs a command with --json and returns its object.
	run := func(t *testing.T, args ...string) map[string]any {
		t.Helper()
		code, out, errOut := runCLI(t, "", append(args, "--json")...)
		require.Equal(t, ExitOK, code, errOut)
		var m map[string]any
		dec := json.NewDecoder(strings.NewReader(out))
		dec.UseNumber()
		require.NoError(t, dec.Decode(&m), out)
		assert.False(t, dec.More(), "one object: %s", out)
		return m
	}
	keys := func(m map[string]any) []string {
		var ks []string
		for k := range m {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		return ks
	}
	str := func(m map[string]any, k string) string { return strings.Trim(string(mustJSON(t, m[k])), `"`) }

	org := run(t, "org", "create", "--data", data, "--name", "Acme")
	orgID := str(org, "organisation_id")
	client := run(t, "clients", "create", "--org", orgID, "--data", data, "--name", "backend")
	clientID, secret := str(client, "client_id"), str(client, "client_secret")
	created := run(t, "workflows", "create", "--data", data, "--client", clientID, "--secret", secret, "--file", wf, "--token-ttl", "720h")
	id := str(created, "work_flow_id")

	workflowKeys := []string{"name", "refresh_token", "status", "units", "work_flow_id"}
	// With a token lifetime (created with --token-ttl; an edit keeps the token).
	withExpiry := []string{"name", "refresh_token", "refresh_token_expires_at", "status", "units", "work_flow_id"}
	tests := []struct {
		name  string
		got   map[string]any
		keys  []string
		check func(t *testing.T, m map[string]any)
	}{
		{"org create", org, []string{"name", "organisation_id"}, func(t *testing.T, m map[string]any) {
			assert.Equal(t, "Acme", m["name"])
		}},
		{"clients create", client, []string{"client_id", "client_secret", "name", "organisation_id"}, func(t *testing.T, m map[string]any) {
			assert.Equal(t, orgID, str(m, "organisation_id"))
		}},
		{"workflows create --token-ttl", created, withExpiry, func(t *testing.T, m map[string]any) {
			at, err := time.Parse(time.RFC3339, str(m, "refresh_token_expires_at"))
			require.NoError(t, err)
			assert.WithinDuration(t, time.Now().Add(720*time.Hour), at, time.Minute)
			assert.Equal(t, "2", str(m, "units"))
		}},
		{"workflows edit, id as argument", run(t, "workflows", "edit", id, "--data", data, "--file", edited), withExpiry, func(t *testing.T, m map[string]any) {
			assert.Equal(t, "KYC edited", m["name"])
		}},
		{"workflows duplicate", run(t, "workflows", "duplicate", id, "--name", "KYC copy", "--data", data, "--secret", secret), workflowKeys, func(t *testing.T, m map[string]any) {
			assert.NotEqual(t, id, m["work_flow_id"])
		}},
		{"workflows rotate-token", run(t, "workflows", "rotate-token", id, "--data", data), workflowKeys, func(t *testing.T, m map[string]any) {
			assert.NotEqual(t, created["refresh_token"], m["refresh_token"])
		}},
		{"workflows archive", run(t, "workflows", "archive", id, "--data", data), []string{"status", "work_flow_id"}, func(t *testing.T, m map[string]any) {
			assert.Equal(t, "archived", m["status"])
		}},
		{"workflows activate", run(t, "workflows", "activate", "--data", data, "--id", id), []string{"status", "work_flow_id"}, func(t *testing.T, m map[string]any) {
			assert.Equal(t, "active", m["status"])
		}},
		{"workflows sdk-token", run(t, "workflows", "sdk-token", id, "--data", data, "--ttl", "1h"), []string{"config", "expires_at", "sdk_token", "work_flow_id"}, func(t *testing.T, m map[string]any) {
			assert.Equal(t, "kenya_national_id", m["config"])
			assert.Len(t, strings.Split(str(m, "sdk_token"), "."), 3)
		}},
		// The example: flags after the positional N.
		{"units add, flags after N", run(t, "units", "add", "--org", orgID, "1000", "--data", data), []string{"added", "balance", "organisation_id"}, func(t *testing.T, m map[string]any) {
			assert.Equal(t, "1000", str(m, "balance"))
		}},
		{"units add, negative N", run(t, "units", "add", "-250", "--org", orgID, "--data", data), []string{"added", "balance", "organisation_id"}, func(t *testing.T, m map[string]any) {
			assert.Equal(t, "-250", str(m, "added"))
			assert.Equal(t, "750", str(m, "balance"))
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.keys, keys(tc.got))
			tc.check(t, tc.got)
		})
	}

	t.Run("text form has the same values", func(t *testing.T) {
		code, out, errOut := runCLI(t, "", "units", "add", "--org", orgID, "5", "--data", data)
		require.Equal(t, ExitOK, code, errOut)
		assert.Equal(t, "organisation_id "+orgID+"\nadded           5\nbalance         755\n", out)
	})
	t.Run("usage errors", func(t *testing.T) {
		for _, args := range [][]string{
			{"units", "add", "--org", orgID, "5", "6", "--data", data},
			{"workflows", "archive", id, "--id", "other", "--data", data},
			{"workflows", "archive", "--data", data},
			{"org", "create", "extra", "--data", data},
			{"workflows", "rotate-token", id, "--ttl", "-1h", "--data", data},
		} {
			code, _, errOut := runCLI(t, "", args...)
			assert.Equal(t, ExitBadInput, code, "%v: %s", args, errOut)
		}
	})
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}
