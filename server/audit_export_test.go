package server_test

import (
	"context"
	"encoding/csv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/server"
)

// TestAuditAPI: the audit log through the API, filtered, as JSON and as
// CSV with formula cells defused; another organisation's client sees
// only its own lines; bad filters are refused in the error shape.
func TestAuditAPI(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	tok := e.token()
	old := time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)
	must(t, e.db.AddAudit(ctx, server.AuditEntry{OrganisationID: e.org.ID, Actor: "=HYPERLINK(\"http://x\")", Action: "client.created",
		ObjectType: "client", ObjectID: "+c1", Detail: "@SUM(A1)", Address: "192.0.2.4", CreatedAt: old}))
	must(t, e.db.AddAudit(ctx, server.AuditEntry{OrganisationID: e.org.ID, Actor: "ann@example.com", Action: "review.approved", ObjectID: "v1"}))
	orgB, err := e.admin.CreateOrganisation(ctx, "Other")
	must(t, err)
	must(t, e.db.AddAudit(ctx, server.AuditEntry{OrganisationID: orgB.ID, Actor: "eve", Action: "review.rejected", ObjectID: "vB"}))
	clientB, secretB, err := e.admin.CreateClient(ctx, orgB.ID, "other")
	must(t, err)

	r := e.call("GET", "/v1/audit", tok, nil)
	require.Equal(t, 200, r.status, string(r.body))
	assert.NotContains(t, string(r.body), "eve", "another organisation's lines")
	assert.Contains(t, string(r.body), "review.approved")
	r = e.call("GET", "/v1/audit?action=review.approved", tok, nil)
	require.Equal(t, 200, r.status)
	assert.Len(t, r.obj["entries"], 1)
	r = e.call("GET", "/v1/audit?to=2026-01-05", tok, nil)
	require.Equal(t, 200, r.status)
	require.Len(t, r.obj["entries"], 1, "a date includes its day")
	assert.Equal(t, "client.created", r.obj["entries"].([]any)[0].(map[string]any)["action"])
	r = e.call("GET", "/v1/audit?from=2026-01-06&actor=ann@example.com", tok, nil)
	require.Equal(t, 200, r.status)
	assert.Len(t, r.obj["entries"], 1)

	csvResp := e.call("GET", "/v1/audit.csv?object_id=%2Bc1", tok, nil)
	require.Equal(t, 200, csvResp.status, string(csvResp.body))
	rows, err := csv.NewReader(strings.NewReader(string(csvResp.body))).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 2)
	assert.Equal(t, server.AuditCSVHeader, rows[0])
	assert.Equal(t, []string{"'=HYPERLINK(\"http://x\")", "client.created", "client", "'+c1", "'@SUM(A1)", "192.0.2.4"}, rows[1][2:])

	for _, q := range []string{"from=yesterday", "to=2026-13-01", "limit=0", "limit=10001", "from=2026-02-01&to=2026-01-01", "actor=a%0Ab"} {
		bad := e.call("GET", "/v1/audit?"+q, tok, nil)
		assert.Equal(t, 400, bad.status, q)
		assert.EqualValues(t, 104, bad.code(), q)
		assert.Equal(t, 400, e.call("GET", "/v1/audit.csv?"+q, tok, nil).status, q)
	}
	rb := e.call("GET", "/v1/audit.csv", e.tokenFor(clientB.ID, secretB), nil)
	require.Equal(t, 200, rb.status)
	assert.Contains(t, string(rb.body), "eve")
	assert.NotContains(t, string(rb.body), "ann@example.com")
	assert.Equal(t, 403, e.call("GET", "/v1/audit", e.scopedToken(e.wfFace), nil).status, "SDK tokens cannot read the audit log")
	assert.Equal(t, 401, e.call("GET", "/v1/audit.csv", "", nil).status)
}
