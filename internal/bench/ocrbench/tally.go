package ocrbench

import (
	"slices"
	"time"

	"github.com/tambua/tambua/internal/bench"
)

// Tally counts what was read of one definition (or of several, added up).
type Tally struct {
	Cards, Found      int
	Sides, Located    int // sides with truth corners, and of those found where they are
	Upright           int // located sides also turned the right way up
	Fields, Exact     int
	Chars, CharErrors int
	// Durations and CPU are the wall and CPU time of each card (of each
	// side in an outline run).
	Durations, CPU []time.Duration
	// ByField counts, per field name, the fields scored and read exactly
	// (the closing table of a run: which fields a family loses).
	ByField map[string]*FieldCount
}

// FieldCount is how often one field was scored and read exactly.
type FieldCount struct{ Scored, Exact int }

// field counts one scored field.
func (t *Tally) field(name string, exact bool) {
	t.Fields++
	c := t.fieldCount(name)
	c.Scored++
	if exact {
		t.Exact++
		c.Exact++
	}
}

func (t *Tally) fieldCount(name string) *FieldCount {
	if t.ByField == nil {
		t.ByField = map[string]*FieldCount{}
	}
	c := t.ByField[name]
	if c == nil {
		c = &FieldCount{}
		t.ByField[name] = c
	}
	return c
}

// time counts one card (or side) started at start with the process's CPU
// time then cpu0.
func (t *Tally) time(start time.Time, cpu0 time.Duration) {
	t.Durations = append(t.Durations, time.Since(start))
	t.CPU = append(t.CPU, bench.ProcessCPU()-cpu0)
}

// Add adds o's counts and times to t.
func (t *Tally) Add(o *Tally) {
	t.Cards += o.Cards
	t.Found += o.Found
	t.Sides += o.Sides
	t.Located += o.Located
	t.Upright += o.Upright
	t.Fields += o.Fields
	t.Exact += o.Exact
	t.Chars += o.Chars
	t.CharErrors += o.CharErrors
	t.Durations = append(t.Durations, o.Durations...)
	t.CPU = append(t.CPU, o.CPU...)
	for n, c := range o.ByField {
		s := t.fieldCount(n)
		s.Scored += c.Scored
		s.Exact += c.Exact
	}
}

// Quantile is the q-quantile of ds (0 <= q <= 1), the element at the
// rounded index q*(len-1) of the sorted values, or zero when ds is empty.
// ds is left as it is. (bench.Percentile takes the index n*p/100 instead;
// this report has always rounded, and keeps doing so to stay comparable.)
func Quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1)+0.5)]
}
