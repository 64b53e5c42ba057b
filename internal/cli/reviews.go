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
	for _, a := range j.History {
		fmt.Fprintf(&b, "history            %s %s %s %s\n", a.At, a.Action, a.Actor, a.Detail)
	}
	return strings.TrimRight(b.String(), "\n")
}

func (c *adminCommand) printCase(rc server.ReviewCase) error {
	j := server.ReviewJSON(rc)
	if *c.json {
		return printJSON(c.env, j)
	}
	return writeFields(c.env.Stdout, caseResult{j})
}

func runReviewsList(ctx context.Context, env *Env, args []string) error {
	c := newAdminCommand(env, "reviews list")
	org := c.Int64("org", 0, "organisation id (required)")
	state := c.String("state", "open", "open, approved, rejected or all")
	workflow := c.String("workflow", "", "only this work_flow_id")
	assignee := c.String("assignee", "", "only cases of this reviewer (- for unassigned)")
	older := c.Duration("older-than", 0, "only cases queued at least this long ago")
	limit := c.Int("limit", 1000, "at most this many cases (1 to 1000)")
	if _, err := c.parse(args, 0); err != nil {
		return err
	}
	if *org <= 0 {
		return Usagef("--org is required")
	}
	switch *state {
	case "open", "approved", "rejected", "all":
	default:
		return Usagef("--state must be open, approved, rejected or all")
	}
	if *limit < 1 || *limit > 1000 || *older < 0 {
		return Usagef("--limit must be 1 to 1000 and --older-than not negative")
	}
	st, admin, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	cases, err := admin.ListReviews(ctx, *org, server.ReviewFilter{State: *state, WorkflowID: *workflow, Assignee: *assignee, OlderThan: *older, Limit: *limit})
	if err != nil {
		return reviewError(err)
	}
	queue, err := reviewsOf(st)
	if err != nil {
		return err
	}
	open, _, err := queue.CountReviews(ctx, *org)
	if err != nil {
		return err
	}
	res := reviewsListResult{Reviews: []server.ReviewCaseJSON{}, Open: open}
	for _, rc := range cases {
		res.Reviews = append(res.Reviews, server.ReviewJSON(rc))
	}
	return c.print(res)
}

// caseArgs reads --org and the verification id (--id or the argument).
func caseArgs(c *adminCommand, args []string) (int64, string, error) {
	org := c.Int64("org", 0, "organisation id (required)")
	idFlag := c.String("id", "", "idv_unique_id (or give it as the argument)")
	pos, err := c.parse(args, 1)
	if err != nil {
		return 0, "", err
	}
	if *org <= 0 {
		return 0, "", Usagef("--org is required")
	}
	id := *idFlag
	switch {
	case id != "" && len(pos) > 0 && pos[0] != id:
		return 0, "", Usagef("give the verification id once (--id or an argument)")
	case id == "" && len(pos) > 0:
		id = pos[0]
	case id == "":
		return 0, "", Usagef("the verification id (idv_unique_id) is required")
	}
	return *org, id, nil
}

func runReviewsShow(ctx context.Context, env *Env, args []string) error {
	c := newAdminCommand(env, "reviews show")
	org, id, err := caseArgs(c, args)
	if err != nil {
		return err
	}
	st, admin, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	rc, err := admin.ReviewCase(ctx, org, id)
	if err != nil {
		return reviewError(err)
	}
	return c.printCase(rc)
}

func runReviewsAssign(ctx context.Context, env *Env, args []string) error {
	c := newAdminCommand(env, "reviews assign")
	assignee := c.String("assignee", "", "the reviewer to assign (empty: unassign)")
	reviewer := c.String("reviewer", "", "who assigns (recorded in the history)")
	org, id, err := caseArgs(c, args)
	if err != nil {
		return err
	}
	st, admin, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	if _, err := admin.AssignReview(ctx, org, id, *assignee, cliActor(*reviewer)); err != nil {
		return reviewError(err)
	}
	rc, err := admin.ReviewCase(ctx, org, id)
	if err != nil {
		return reviewError(err)
	}
	return c.printCase(rc)
}

func runReviewsDecide(ctx context.Context, env *Env, args []string) error {
	c := newAdminCommand(env, "reviews decide")
	decision := c.String("decision", "", "approve or reject (required)")
	reason := c.String("reason", "", "reason code (required): "+strings.Join(server.ReviewReasons, ", "))
	note := c.String("note", "", "note for the history (not sent by webhook)")
	reviewer := c.String("reviewer", "", "who decides (required)")
	org, id, err := caseArgs(c, args)
	if err != nil {
		return err
	}
	st, admin, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	in := server.DecisionInput{Decision: *decision, Reason: *reason, Note: *note, Reviewer: *reviewer}
	if _, err := admin.DecideReview(ctx, org, id, in, cliActor(*reviewer)); err != nil {
		return reviewError(err)
	}
	rc, err := admin.ReviewCase(ctx, org, id)
	if err != nil {
		return reviewError(err)
	}
	return c.printCase(rc)
}
