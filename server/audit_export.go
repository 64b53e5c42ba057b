package server

import (
	"encoding/csv"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/server/webhook"
)

// The audit log's reading side (docs/reviews.md): one filter syntax for
// the API, the console page and its CSV export.

// AuditCSVHeader is the first row of an exported audit log.
var AuditCSVHeader = []string{"id", "time", "actor", "action", "object_type", "object_id", "detail", "address"}

// WriteAuditCSV exports audit lines as CSV (RFC 4180). Every text cell
// goes through webhook.SafeCell: actors, details and object ids can carry
// what a person typed (a client or webhook name), which a spreadsheet
// must not run as a formula.
func WriteAuditCSV(w io.Writer, entries []AuditEntry) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(AuditCSVHeader); err != nil {
		return err
	}
	for _, e := range entries {
		row := []string{strconv.FormatInt(e.ID, 10), e.CreatedAt.UTC().Format(time.RFC3339), webhook.SafeCell(e.Actor),
			webhook.SafeCell(e.Action), webhook.SafeCell(e.ObjectType), webhook.SafeCell(e.ObjectID), webhook.SafeCell(e.Detail),
			webhook.SafeCell(e.Address)}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// maxAuditRows bounds one answer or export: a year of a busy
// organisation's console and review actions fits.
const maxAuditRows = 10000

// parseAuditTime reads a filter bound: RFC 3339, or a date (midnight UTC).
func parseAuditTime(name, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, nil
	}
	if t, err := time.Parse("2006-01-02", v); err == nil {
		return t, nil
	}
	return time.Time{}, idv.Errorf(idv.EInvalid, "%s must be a date (2026-11-24) or an RFC 3339 time", name)
}

// ParseAuditFilter reads the audit filters of a query: action, actor,
// object_id, from (inclusive), to (a date: through that day; a time:
// exclusive) and limit (1 to 10000).
func ParseAuditFilter(q url.Values) (AuditFilter, error) {
	f := AuditFilter{Action: strings.TrimSpace(q.Get("action")), Actor: strings.TrimSpace(q.Get("actor")),
		ObjectID: strings.TrimSpace(q.Get("object_id")), Limit: maxAuditRows}
	for name, v := range map[string]string{"action": f.Action, "actor": f.Actor, "object_id": f.ObjectID} {
		if v != "" && !validName(v) {
			return f, idv.Errorf(idv.EInvalid, "%s must be 1 to 254 characters on one line", name)
		}
	}
	var err error
	if f.Since, err = parseAuditTime("from", q.Get("from")); err != nil {
		return f, err
	}
	to := q.Get("to")
	if f.Until, err = parseAuditTime("to", to); err != nil {
		return f, err
	}
	if len(to) == len("2006-01-02") {
		f.Until = f.Until.AddDate(0, 0, 1) // a date includes its day
	}
	if !f.Since.IsZero() && !f.Until.IsZero() && !f.Since.Before(f.Until) {
		return f, idv.Errorf(idv.EInvalid, "from must be before to")
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxAuditRows {
			return f, idv.Errorf(idv.EInvalid, "limit must be 1 to %d", maxAuditRows)
		}
		f.Limit = n
	}
	return f, nil
}

// AuditEntryJSON is an audit line as the API shows it.
type AuditEntryJSON struct {
	ID         int64  `json:"id"`
	Time       string `json:"time"`
	Actor      string `json:"actor"`
	Action     string `json:"action"`
	ObjectType string `json:"object_type,omitempty"`
	ObjectID   string `json:"object_id,omitempty"`
	Detail     string `json:"detail,omitempty"`
	Address    string `json:"address,omitempty"`
}

func auditJSON(e AuditEntry) AuditEntryJSON {
	return AuditEntryJSON{ID: e.ID, Time: e.CreatedAt.UTC().Format(time.RFC3339), Actor: e.Actor, Action: e.Action,
		ObjectType: e.ObjectType, ObjectID: e.ObjectID, Detail: e.Detail, Address: e.Address}
}

// auditRoutes are GET /v1/audit (JSON) and GET /v1/audit.csv: the
// organisation's audit log, newest first, for its own clients only.
func (s *Server) auditRoutes(au Audit) []apiRoute {
	read := func(w http.ResponseWriter, r *http.Request, p *Principal) ([]AuditEntry, *APIError) {
		f, err := ParseAuditFilter(r.URL.Query())
		if err != nil {
			return nil, reviewErr(err)
		}
		entries, err := au.AuditLog(r.Context(), p.OrganisationID, f)
		if err != nil {
			return nil, apiErr(CodeInternal, "%v", err)
		}
		return entries, nil
	}
	list := func(w http.ResponseWriter, r *http.Request, p *Principal) *APIError {
		entries, aerr := read(w, r, p)
		if aerr != nil {
			return aerr
		}
		out := make([]AuditEntryJSON, 0, len(entries))
		for _, e := range entries {
			out = append(out, auditJSON(e))
		}
		writeJSON(w, http.StatusOK, map[string]any{"entries": out})
		return nil
	}
	export := func(w http.ResponseWriter, r *http.Request, p *Principal) *APIError {
		entries, aerr := read(w, r, p)
		if aerr != nil {
			return aerr
		}
		writeAuditCSV(w, entries)
		return nil
	}
	return []apiRoute{
		{"GET", "/v1/audit", "audit_list", s.withClient(list)},
		{"GET", "/v1/audit.csv", "audit_export", s.withClient(export)},
	}
}

// writeAuditCSV answers with the CSV download.
func writeAuditCSV(w http.ResponseWriter, entries []AuditEntry) {
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="audit-log.csv"`)
	w.Header().Set("Cache-Control", "no-store")
	_ = WriteAuditCSV(w, entries) // a broken connection: nothing to tell
}
