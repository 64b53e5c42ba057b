package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/tambua/tambua/server"
)

// The audit log and retention commands (docs/reviews.md).

func init() {
	Register(&Command{Path: "audit list", Summary: "list an organisation's audit log, newest first", Run: runAuditList})
	Register(&Command{Path: "org retention", Summary: "set how many days verification images and personal fields are kept (0: kept)", Run: runOrgRetention})
}

type auditLine struct {
	At         string `json:"at"`
	Actor      string `json:"actor"`
	Action     string `json:"action"`
	ObjectType string `json:"object_type"`
	ObjectID   string `json:"object_id"`
	Detail     string `json:"detail,omitempty"`
	Address    string `json:"address,omitempty"`
}

type auditResult struct {
	Entries []auditLine `json:"entries"`
}

func (r auditResult) text() string {
	var b strings.Builder
	for _, e := range r.Entries {
		fmt.Fprintf(&b, "%s %s %s %s:%s %s %s\n", e.At, e.Actor, e.Action, e.ObjectType, e.ObjectID, e.Detail, e.Address)
	}
	return strings.TrimRight(b.String(), "\n")
}

func runAuditList(ctx context.Context, env *Env, args []string) error {
	c := newAdminCommand(env, "audit list").withOrg()
	action := c.String("action", "", "only this action (review.approved, verification.erased, ...)")
	since := c.Duration("since", 0, "only lines of this last period (e.g. 24h)")
	limit := c.Int("limit", 1000, "at most this many lines (1 to 10000)")
	if _, err := c.parse(args, 0); err != nil {
		return err
	}
	if *limit < 1 || *limit > 10000 || *since < 0 {
		return Usagef("--limit must be 1 to 10000 and --since not negative")
	}
	f := server.AuditFilter{Action: *action, Limit: *limit}
	if *since > 0 {
		f.Since = time.Now().Add(-*since)
	}
	return c.run(ctx, adminError, func(st backend, _ *server.Admin) (any, error) {
		audit, err := auditOf(st)
		if err != nil {
			return nil, err
		}
		entries, err := audit.AuditLog(ctx, *c.org, f)
		res := auditResult{Entries: []auditLine{}}
		for _, e := range entries {
			res.Entries = append(res.Entries, auditLine{At: e.CreatedAt.UTC().Format(time.RFC3339), Actor: e.Actor, Action: e.Action,
				ObjectType: e.ObjectType, ObjectID: e.ObjectID, Detail: e.Detail, Address: e.Address})
		}
		return res, err
	})
}

type retentionResult struct {
	OrganisationID int64 `json:"organisation_id"`
	RetentionDays  int   `json:"retention_days"`
}

func runOrgRetention(ctx context.Context, env *Env, args []string) error {
	c := newAdminCommand(env, "org retention")
	org := c.Int64("org", 0, "organisation id (required)")
	days := c.Int("days", -1, "days after completion to keep images and personal fields (0: keep; required)")
	if _, err := c.parse(args, 0); err != nil {
		return err
	}
	// 100 years: a bound against typos, far beyond any lawful period.
	if *org <= 0 || *days < 0 || *days > 36500 {
		return Usagef("usage: tambua org retention --org ID --days N (0 to 36500)")
	}
	return c.run(ctx, adminError, func(st backend, admin *server.Admin) (any, error) {
		audit, err := auditOf(st)
		if err != nil {
			return nil, err
		}
		if err := audit.SetRetention(ctx, *org, *days); err != nil {
			return nil, err
		}
		if err := audit.AddAudit(ctx, server.AuditEntry{OrganisationID: *org, Actor: admin.Actor, Action: "organisation.retention",
			ObjectType: "organisation", ObjectID: fmt.Sprint(*org), Detail: fmt.Sprint(*days)}); err != nil {
			return nil, fmt.Errorf("retention set, but the audit log could not be written: %w", err)
		}
		return retentionResult{OrganisationID: *org, RetentionDays: *days}, nil
	})
}
