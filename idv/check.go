package idv

import (
	"context"
	"fmt"
	"sort"
	"sync"
)

// Check is one step of a workflow. Run reads what earlier checks left on the
// Case and writes its own findings there. A check that finds a negative (a
// forgery, a face that does not match) returns an Outcome with StatusFailed;
// a non-nil error means the check could not run at all.
type Check interface {
	Name() string
	// Cost is the number of units one run of the check consumes.
	Cost() int
	Run(ctx context.Context, c *Case) (Outcome, error)
}

// StepValidator is implemented by checks that take step parameters.
// Prepare calls ValidateStep for every step naming the check (with the
// threshold in force and the step's params), so a bad parameter fails the
// workflow once, up front, instead of sending every verification to review.
type StepValidator interface {
	ValidateStep(st Step) error
}

// Closer is implemented by checks that hold resources (models, child
// processes) to release when the engine is closed.
type Closer interface {
	Close() error
}

// Status is the state of one check in one verification.
type Status string

const (
	// StatusPassed: the check ran and found nothing against the holder.
	StatusPassed Status = "passed"
	// StatusReview: the check ran and a person must decide (a possible
	// sanctions hit, a face in the review band).
	StatusReview Status = "review"
	// StatusFailed: the check ran and its finding rejects the verification.
	StatusFailed Status = "failed"
	// StatusError: the check could not run (an error, a crash, a timeout).
	StatusError Status = "error"
	// StatusSkipped: an earlier check failed, so this one did not run.
	StatusSkipped Status = "skipped"
	// StatusNotRequested marks a result section whose check is not in the
	// workflow.
	StatusNotRequested Status = "not_requested"
)

// Outcome is what a check reports. Confidence is meaningful only when
// HasConfidence is set; the engine compares it with the workflow threshold.
type Outcome struct {
	Status        Status
	Confidence    float64
	HasConfidence bool
	// Reasons use the decision_reasons vocabulary (face_no_match, underage...).
	Reasons []string
	// Pieces explain how Confidence was produced.
	Pieces []ScorePiece
	// Flags are informational notes that do not change the verdict.
	Flags []string
}

// ScorePiece is one named contribution to a score, so that every number a
// check reports can be explained.
type ScorePiece struct {
	Name   string  `json:"name"`
	Value  float64 `json:"value"`
	Weight float64 `json:"weight"`
	Note   string  `json:"note,omitempty"`
}

// Passed returns a passed outcome with the given confidence and pieces.
func Passed(confidence float64, pieces ...ScorePiece) Outcome {
	return Outcome{Status: StatusPassed, Confidence: confidence, HasConfidence: true, Pieces: pieces}
}

// Failed returns a failed outcome with the given reasons.
func Failed(reasons ...string) Outcome {
	return Outcome{Status: StatusFailed, Reasons: reasons}
}

// Settings carry process-wide configuration to check constructors, such as
// the folder of model files ("models_dir") or sanctions lists ("lists_dir").
type Settings map[string]string

// Get returns the value of key, or def when it is unset or empty.
func (s Settings) Get(key, def string) string {
	if v, ok := s[key]; ok && v != "" {
		return v
	}
	return def
}

// Factory builds a check. It is called once per Engine; heavy resources
// (models, lists) should be loaded lazily on the first Run so that an engine
// that never runs a check pays nothing for it.
type Factory func(s Settings) (Check, error)

var (
	registryMu sync.RWMutex
	registry   = map[string]Factory{}
)

// Register makes a check available by name, in the way database/sql drivers
// register themselves from init. It panics if the factory is nil or the name
// is registered twice, because both are programming errors.
func Register(name string, f Factory) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if f == nil {
		panic("idv: Register factory is nil for " + name)
	}
	if !validCheckName(name) {
		panic(fmt.Sprintf("idv: Register invalid check name %q", name))
	}
	if _, dup := registry[name]; dup {
		panic("idv: Register called twice for check " + name)
	}
	registry[name] = f
}

// Registered returns the names of the registered checks, sorted.
func Registered() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func lookupFactory(name string) (Factory, bool) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	f, ok := registry[name]
	return f, ok
}

// ValidCheckName reports whether name can name a check: 2 to 64 lower case
// letters, digits and underscores, starting with a letter.
func ValidCheckName(name string) bool { return validCheckName(name) }

func validCheckName(name string) bool {
	if len(name) < 2 || len(name) > 64 {
		return false
	}
	for i, r := range name {
		switch {
		case r >= 'a' && r <= 'z':
		case (r >= '0' && r <= '9') || r == '_':
			if i == 0 {
				return false
			}
		default:
			return false
		}
	}
	return true
}
