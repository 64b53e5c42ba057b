// Package synthbench measures the corpus renderer of internal/testkit/synth
// for tambua bench synth: samples per second, CPU time and memory per
// sample, and whether each sample's truth is valid against its document
// definition's patterns and the MRZ parser.
package synthbench

import (
	"context"
	"fmt"
	"regexp"
	"runtime"
	"time"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/bench"
	"github.com/tambua/tambua/internal/testkit/synth"
	"github.com/tambua/tambua/mrz"
)

// Options say which samples are rendered.
type Options struct {
	Count      int
	Seed       uint64
	Difficulty synth.Difficulty
	Attacks    bool
	Variant    synth.Variant
}

// Report is what one run measured.
type Report struct {
	Options
	// Definitions is how many the corpus draws from; Warmup the time of
	// the first pass over them, which draws their shared layers.
	Definitions int
	Warmup      time.Duration
	// Times is each sample's wall time; Total the whole timed pass, CPU
	// its process CPU time (0 where unknown).
	Times      []time.Duration
	Total, CPU time.Duration
	AllocBytes uint64
	Valid      int // samples whose truth passed CheckTruth
	MRZ, MRZOK int // samples with an MRZ, and those the parser accepted
	Problems   []string
}

// Run renders o.Count samples one at a time after a warm-up pass and checks
// each one's truth.
func Run(ctx context.Context, o Options) (*Report, error) {
	reg := docdefs.Default()
	defs := reg.Drawn()
	gen, err := synth.New(synth.Options{Definitions: defs, Seed: o.Seed, Difficulty: o.Difficulty, Attacks: o.Attacks, Variant: o.Variant})
	if err != nil {
		return nil, err
	}
	rep := &Report{Options: o, Definitions: len(defs)}
	// the first pass over the definitions draws their shared layers
	warm := time.Now()
	for i := 0; i < len(defs); i++ {
		if _, err := gen.Sample(ctx, i); err != nil {
			return nil, err
		}
	}
	rep.Warmup = time.Since(warm)

	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	start := time.Now()
	cpu0 := bench.ProcessCPU()
	for i := 0; i < o.Count; i++ {
		t0 := time.Now()
		s, err := gen.Sample(ctx, i)
		if err != nil {
			return nil, err
		}
		rep.Times = append(rep.Times, time.Since(t0))
		d, _ := reg.Definition(s.Truth.Config)
		tc := CheckTruth(i, d, &s.Truth)
		if tc.Valid {
			rep.Valid++
		}
		if tc.HasMRZ {
			rep.MRZ++
			if tc.MRZOK {
				rep.MRZOK++
			}
		}
		rep.Problems = append(rep.Problems, tc.Problems...)
	}
	rep.Total = time.Since(start)
	rep.CPU = bench.ProcessCPU() - cpu0
	runtime.ReadMemStats(&ms1)
	rep.AllocBytes = ms1.TotalAlloc - ms0.TotalAlloc
	return rep, nil
}

// TruthCheck is the verdict on one sample's truth.
type TruthCheck struct {
	// Valid: every field of the schema has a value and each value matches
	// its field's pattern.
	Valid bool
	// HasMRZ: the sample prints an MRZ; MRZOK: the parser accepts it with
	// every check digit, and reads the truth's number and birth date.
	HasMRZ, MRZOK bool
	// Problems name the fields and MRZs that failed, prefixed with the
	// sample index.
	Problems []string
}

// CheckTruth checks the truth of sample i against its definition d.
func CheckTruth(i int, d *idv.DocumentDefinition, tr *synth.Truth) TruthCheck {
	var tc TruthCheck
	tc.Valid = len(tr.Combined) == len(d.FieldSchema)
	for _, f := range d.Fields {
		if f.Pattern != "" && !regexp.MustCompile(f.Pattern).MatchString(tr.Combined[f.Name]) {
			tc.Valid = false
			tc.Problems = append(tc.Problems, fmt.Sprintf("%d %s.%s=%q", i, d.Config, f.Name, tr.Combined[f.Name]))
		}
	}
	if len(tr.MRZLines) > 0 {
		tc.HasMRZ = true
		if m, err := mrz.Parse(tr.MRZLines, mrz.Options{Now: synth.ReferenceDate}); err == nil && m.AllChecksPass &&
			m.DocumentNumber == tr.MRZParsed["document_number"] && m.DateOfBirth == tr.MRZParsed["date_of_birth"] {
			tc.MRZOK = true
		} else {
			tc.Problems = append(tc.Problems, fmt.Sprintf("%d %s MRZ", i, d.Config))
		}
	}
	return tc
}
