// Package idv is the domain of Tambua: checks, workflows, document
// definitions, the Case a verification carries through its checks, the
// Result it returns, and the Engine that runs a workflow's checks in order
// and aggregates their outcomes into a verdict.
//
// The package is pure Go and does no I/O of its own. Built-in checks live in
// packages under checks/ and register themselves from init, like database/sql
// drivers; import checks/standard for all of them, or give the engine
// explicit Check values with WithChecks.
//
// A check author implements Check. Optional interfaces a check may add:
//
//   - StepValidator: refuse bad step parameters when a workflow is prepared
//     (Engine.Prepare) or created (Engine.ValidateSteps), not at every run.
//   - Closer: release models, pools or child processes when the engine closes.
//
// The verdict follows the spec's business rules: checks run in workflow
// order; a failed check skips the rest; a confidence below the workflow's
// threshold gives review when manual review is enabled with auto-decline
// off, and reject otherwise; a check that could not run gives review, never
// accept.
package idv
