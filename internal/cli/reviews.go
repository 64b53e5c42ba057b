package cli

import (
	"context"
	"errors"
	"fmt"
	"os/user"
	"strings"

	"github.com/tambua/tambua/server"
)

// The review commands (docs/reviews.md): the manual review queue of one
// organisation, from the data folder, for operators until the console
// exists. They print the case as the API does; with --json one object.

func init() {
	Register(&Command{Path: "reviews list", Summary: "list an organisation's review cases, oldest first", Run: runReviewsList})
	Register(&Command{Path: "reviews show", Summary: "show one review case with its history", Run: runReviewsShow})
	Register(&Command{Path: "reviews assign", Summary: "assign an open review case to a reviewer", Run: runReviewsAssign})
	Register(&Command{Path: "reviews decide", Summary: "approve or reject an open review case with a reason", Run: runReviewsDecide})
}

// reviewError: a case that is decided, not in review or not the
// organisation's is the caller's mistake (exit 2, one line).
func reviewError(err error) error {
	switch {
	case errors.Is(err, server.ErrDecided):
		return &UsageError{Err: fmt.Errorf("this case is already decided (%s)", strings.TrimPrefix(err.Error(), server.ErrDecided.Error()+": "))}
	case errors.Is(err, server.ErrChanged), errors.Is(err, server.ErrSameReviewer):
		return &UsageError{Err: errors.New(server.ReviewMessage(err))}
	case errors.Is(err, server.ErrNotInReview):
		return &UsageError{Err: errors.New("this verification is not in review: its automated verdict was final")}
	case errors.Is(err, server.ErrNotFound):
		return &UsageError{Err: errors.New("no such verification in this organisation")}
	}
	return adminError(err)
}

// cliActor names who acted in the history: the reviewer, through the
// admin CLI, as the operating system user.
func cliActor(reviewer string) string {
	who := "unknown"
	if u, err := user.Current(); err == nil {
		who = u.Username
	}
	if reviewer == "" {
		return "admin-cli:" + who
	}
	return reviewer + " (admin-cli:" + who + ")"
}

type reviewsListResult struct {
	Reviews []server.ReviewCaseJSON `json:"reviews"`
	Open    int64                   `json:"open"`
}

func (r reviewsListResult) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-36s %-8s %-24s %-20s %s\n", "IDV_UNIQUE_ID", "STATE", "ASSIGNEE", "QUEUED_AT", "REASONS")
	for _, j := range r.Reviews {
		fmt.Fprintf(&b, "%-36s %-8s %-24s %-20s %s\n", j.VerificationID, j.State, orDash(j.Assignee), j.QueuedAt, strings.Join(j.AutomatedReasons, ","))
	}
	fmt.Fprintf(&b, "%d open", r.Open)
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// caseResult prints a case: JSON as the API, text as name/value lines.
type caseResult struct{ server.ReviewCaseJSON }

func (r caseResult) text() string {
	j := r.ReviewCaseJSON
	var b strings.Builder
	for _, kv := range [][2]string{{"idv_unique_id", j.VerificationID}, {"work_flow_id", j.WorkflowID}, {"state", j.State},
		{"automated_decision", j.AutomatedDecision}, {"automated_reasons", strings.Join(j.AutomatedReasons, ",")},
		{"assignee", j.Assignee}, {"reason", j.Reason}, {"reviewer", j.Reviewer}, {"note", j.Note},
		{"queued_at", j.QueuedAt}, {"decided_at", j.DecidedAt}} {
		if kv[1] != "" {
			fmt.Fprintf(&b, "%-18s %s\n", kv[0], kv[1])
		}
	}
	if f := j.FirstDecision; f != nil {
		fmt.Fprintf(&b, "%-18s %s %s by %s at %s\n", "first_decision", f.Decision, f.Reason, f.Reviewer, f.DecidedAt)
	}
	for _, a := range j.History {
		fmt.Fprintf(&b, "history            %s %s %s %s\n", a.At, a.Action, a.Actor, a.Detail)
	}
	return strings.TrimRight(b.String(), "\n")
}

func runReviewsList(ctx context.Context, env *Env, args []string) error {
	c := newAdminCommand(env, "reviews list").withOrg()
	state := c.String("state", "open", "open, approved, rejected or all")
	workflow := c.String("workflow", "", "only this work_flow_id")
	assignee := c.String("assignee", "", "only cases of this reviewer (- for unassigned)")
	older := c.Duration("older-than", 0, "only cases queued at least this long ago")
	limit := c.Int("limit", 1000, "at most this many cases (1 to 1000)")
	if _, err := c.parse(args, 0); err != nil {
		return err
	}
	switch *state {
	case "open", "approved", "rejected", "all":
	default:
		return Usagef("--state must be open, approved, rejected or all")
	}
	if *limit < 1 || *limit > 1000 || *older < 0 {
		return Usagef("--limit must be 1 to 1000 and --older-than not negative")
	}
	return c.run(ctx, reviewError, func(st backend, admin *server.Admin) (any, error) {
		cases, err := admin.ListReviews(ctx, *c.org, server.ReviewFilter{State: *state, WorkflowID: *workflow, Assignee: *assignee, OlderThan: *older, Limit: *limit})
		if err != nil {
			return nil, err
		}
		queue, err := reviewsOf(st)
		if err != nil {
			return nil, err
		}
		open, _, err := queue.CountReviews(ctx, *c.org)
		res := reviewsListResult{Reviews: []server.ReviewCaseJSON{}, Open: open}
		for _, rc := range cases {
			res.Reviews = append(res.Reviews, server.ReviewJSON(rc))
		}
		return res, err
	})
}

// caseCommand is the frame of the commands on one review case: --org
// and the verification id (--id or the argument).
func caseCommand(env *Env, path string) *adminCommand {
	return newAdminCommand(env, path).withOrg().withID("verification id (idv_unique_id)", "idv_unique_id")
}

// runCase runs act on the case id of c's organisation, if act is given,
// and prints the case as it then stands.
func runCase(ctx context.Context, c *adminCommand, id string, act func(*server.Admin) error) error {
	return c.run(ctx, reviewError, func(_ backend, admin *server.Admin) (any, error) {
		if act != nil {
			if err := act(admin); err != nil {
				return nil, err
			}
		}
		rc, err := admin.ReviewCase(ctx, *c.org, id)
		return caseResult{server.ReviewJSON(rc)}, err
	})
}

func runReviewsShow(ctx context.Context, env *Env, args []string) error {
	c := caseCommand(env, "reviews show")
	id, err := c.parseID(args)
	if err != nil {
		return err
	}
	return runCase(ctx, c, id, nil)
}

func runReviewsAssign(ctx context.Context, env *Env, args []string) error {
	c := caseCommand(env, "reviews assign")
	assignee := c.String("assignee", "", "the reviewer to assign (empty: unassign)")
	reviewer := c.String("reviewer", "", "who assigns (recorded in the history)")
	id, err := c.parseID(args)
	if err != nil {
		return err
	}
	return runCase(ctx, c, id, func(admin *server.Admin) error {
		_, err := admin.AssignReview(ctx, *c.org, id, *assignee, cliActor(*reviewer))
		return err
	})
}

func runReviewsDecide(ctx context.Context, env *Env, args []string) error {
	c := caseCommand(env, "reviews decide")
	decision := c.String("decision", "", "approve or reject (required)")
	reason := c.String("reason", "", "reason code (required): "+strings.Join(server.ReviewReasons, ", "))
	note := c.String("note", "", "note for the history (not sent by webhook)")
	reviewer := c.String("reviewer", "", "who decides (required)")
	id, err := c.parseID(args)
	if err != nil {
		return err
	}
	in := server.DecisionInput{Decision: *decision, Reason: *reason, Note: *note, Reviewer: *reviewer}
	return runCase(ctx, c, id, func(admin *server.Admin) error {
		_, err := admin.DecideReview(ctx, *c.org, id, in, cliActor(*reviewer))
		return err
	})
}
