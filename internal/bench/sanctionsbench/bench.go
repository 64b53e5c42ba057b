// Package sanctionsbench builds the sanctions screening benchmark: a
// query set made from the loaded lists (listed names with one and two
// typos, swapped token order, a dropped middle name, diacritics and
// transliteration variants) and from ordinary non-listed names of several
// regions, and the measures tambua bench sanctions prints.
package sanctionsbench

import (
	"context"
	"fmt"
	"math/rand"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/tambua/tambua/checks/sanctions/lists"
	"github.com/tambua/tambua/checks/sanctions/match"
	"github.com/tambua/tambua/internal/bench"
)

// Query is one name of the benchmark.
type Query struct {
	Text string `json:"text"`
	// Variant is how the query was made: typo1, typo2, swap,
	// drop_middle, diacritics, translit for listed names; kenyan,
	// nigerian, english, business for non-listed ones.
	Variant string `json:"variant"`
	// Want is list:id of the entity a listed query was made from.
	Want string `json:"want,omitempty"`
}

// Seeds of the query set. The matcher's constants were tuned on TuneSeed
// only; HeldOutSeed is reported and tested, never tuned on.
const (
	TuneSeed    = 7
	HeldOutSeed = 1124
)

// Listed variants, in the order reports print them.
var ListedVariants = []string{"typo1", "typo2", "swap", "drop_middle", "diacritics", "translit"}

// Plain variants (non-listed names).
var PlainVariants = []string{"kenyan", "nigerian", "english", "business"}

// Build makes nListed queries from the entities and nPlain non-listed
// names, deterministically from seed. Vessels and aircraft are left out:
// nobody onboards a ship.
func Build(ents []*lists.Entity, seed int64, nListed, nPlain int) []Query {
	rng := rand.New(rand.NewSource(seed))
	var pool []*lists.Entity
	listedNorm := map[string]bool{}
	for _, e := range ents {
		for _, n := range e.Names() {
			listedNorm[tokenSet(n)] = true
		}
		if e.Kind == lists.Person || e.Kind == lists.Organization {
			pool = append(pool, e)
		}
	}
	var out []Query
	for tries := 0; len(out) < nListed && tries < nListed*20 && len(pool) > 0; tries++ {
		e := pool[rng.Intn(len(pool))]
		names := e.Names()
		name := names[rng.Intn(len(names))]
		name = match.NaturalOrder(name, e.Kind == lists.Person)
		words := strings.Fields(name)
		if len(words) == 0 || len([]rune(name)) < 4 {
			continue
		}
		variant := ListedVariants[len(out)%len(ListedVariants)]
		text, ok := perturb(rng, words, variant, e.Kind == lists.Person)
		if !ok || text == "" {
			continue
		}
		out = append(out, Query{Text: text, Variant: variant, Want: e.List + ":" + e.ID})
	}
	for i := 0; len(out) < nListed+nPlain && i < nPlain*20; i++ {
		v := PlainVariants[i%len(PlainVariants)]
		text := plainName(rng, v)
		if listedNorm[tokenSet(text)] {
			continue // by chance an exact listed name: not a non-listed name
		}
		out = append(out, Query{Text: text, Variant: v})
	}
	return out
}

func pick(rng *rand.Rand, s []string) string { return s[rng.Intn(len(s))] }

func plainName(rng *rand.Rand, v string) string {
	switch v {
	case "kenyan":
		if rng.Intn(3) == 0 {
			return pick(rng, kenyanFirst) + " " + pick(rng, kenyanFirst) + " " + pick(rng, kenyanLast)
		}
		return pick(rng, kenyanFirst) + " " + pick(rng, kenyanLast)
	case "nigerian":
		if rng.Intn(3) == 0 {
			return pick(rng, nigerianFirst) + " " + pick(rng, nigerianFirst) + " " + pick(rng, nigerianLast)
		}
		return pick(rng, nigerianFirst) + " " + pick(rng, nigerianLast)
	case "english":
		if rng.Intn(4) == 0 {
			return pick(rng, englishFirst) + " " + pick(rng, englishFirst) + " " + pick(rng, englishLast)
		}
		return pick(rng, englishFirst) + " " + pick(rng, englishLast)
	default:
		return strings.TrimSpace(pick(rng, businessHead) + " " + pick(rng, businessWords) + " " + pick(rng, businessSuffix))
	}
}

// perturb applies one variant to a name's words.
func perturb(rng *rand.Rand, words []string, variant string, person bool) (string, bool) {
	w := append([]string(nil), words...)
	switch variant {
	case "typo1", "typo2":
		n := 1
		if variant == "typo2" {
			n = 2
		}
		// Misspellings happen in the letters of names of three letters
		// or more (KIM, LEE), not in abbreviations such as S.A. or C.V.
		// Each typo picks its word on its own, so both may land in one
		// word, as they do when a name is keyed in twice as fast.
		var idx []int
		for i, t := range w {
			if letterCount(t) >= 3 && !strings.Contains(t, ".") {
				idx = append(idx, i)
			}
		}
		if len(idx) == 0 {
			return "", false
		}
		for k := 0; k < n; k++ {
			i := idx[rng.Intn(len(idx))]
			w[i] = typo(rng, w[i])
		}
	case "swap":
		if len(w) < 2 {
			return "", false
		}
		if len(w) == 2 || rng.Intn(2) == 0 {
			w[0], w[len(w)-1] = w[len(w)-1], w[0]
		} else {
			i := rng.Intn(len(w) - 1)
			w[i], w[i+1] = w[i+1], w[i]
		}
	case "drop_middle":
		if !person || len(w) < 3 {
			return "", false
		}
		i := 1 + rng.Intn(len(w)-2)
		w = append(w[:i], w[i+1:]...)
	case "diacritics":
		changed := false
		for i := range w {
			nw := accent(rng, w[i])
			changed = changed || nw != w[i]
			w[i] = nw
		}
		if !changed {
			return "", false
		}
	case "translit":
		order := rng.Perm(len(w))
		done := false
		for _, i := range order {
			if letterCount(w[i]) < 4 {
				continue // not in abbreviations such as E.U.
			}
			if nw, ok := translit(rng, w[i]); ok {
				w[i], done = nw, true
				break
			}
		}
		if !done {
			return "", false
		}
	}
	return strings.Join(w, " "), true
}

const letters = "ABCDEFGHIJKLMNOPRSTUVWYZ"

func letterCount(w string) int {
	n := 0
	for _, r := range w {
		if unicode.IsLetter(r) {
			n++
		}
	}
	return n
}

// typo makes one slip in a word: a substitution, deletion, insertion or
// transposition at any letter, the first included (OCR and hurried
// typing miss it too).
func typo(rng *rand.Rand, word string) string {
	r := []rune(word)
	var at []int
	for i := 0; i < len(r); i++ {
		if unicode.IsLetter(r[i]) {
			at = append(at, i)
		}
	}
	if len(at) == 0 {
		return word
	}
	i := at[rng.Intn(len(at))]
	c := rune(letters[rng.Intn(len(letters))])
	if unicode.IsLower(r[i]) {
		c = unicode.ToLower(c)
	}
	switch rng.Intn(4) {
	case 0: // substitution
		r[i] = c
	case 1: // deletion
		r = append(r[:i], r[i+1:]...)
	case 2: // insertion
		r = append(r[:i], append([]rune{c}, r[i:]...)...)
	default: // transposition
		if i+1 < len(r) {
			r[i], r[i+1] = r[i+1], r[i]
		} else {
			r[i-1], r[i] = r[i], r[i-1]
		}
	}
	return string(r)
}

var accents = map[rune][]rune{
	'A': []rune("ÁÀÄÂ"), 'E': []rune("ÉÈË"), 'I': []rune("ÍÏ"), 'O': []rune("ÓÖÔ"), 'U': []rune("ÚÜ"),
	'C': []rune("Ç"), 'N': []rune("Ñ"), 'S': []rune("Š"), 'Z': []rune("Ž"),
	'a': []rune("áàäâ"), 'e': []rune("éèë"), 'i': []rune("íï"), 'o': []rune("óöô"), 'u': []rune("úü"),
	'c': []rune("ç"), 'n': []rune("ñ"), 's': []rune("š"), 'z': []rune("ž"),
}

// accent puts diacritics on some letters of a word, as a name printed in
// its own language shows them.
func accent(rng *rand.Rand, word string) string {
	r := []rune(word)
	for i, c := range r {
		if alt, ok := accents[c]; ok && rng.Intn(3) == 0 {
			r[i] = alt[rng.Intn(len(alt))]
		}
	}
	return string(r)
}

// translitRules are spelling variants of the same sound, both ways.
var translitRules = [][2]string{
	{"MOHAMMED", "MUHAMMAD"}, {"MOHAMMAD", "MOHAMED"}, {"MUHAMMAD", "MOHAMMED"}, {"AHMED", "AHMAD"},
	{"HUSSEIN", "HUSAYN"}, {"HUSAYN", "HOSSEIN"}, {"OU", "U"}, {"OO", "U"}, {"EE", "I"}, {"KH", "H"},
	{"Q", "K"}, {"SH", "SCH"}, {"J", "DJ"}, {"DH", "Z"}, {"PH", "F"}, {"CK", "K"}, {"AI", "AY"},
	{"EI", "AY"}, {"YU", "IU"}, {"YA", "IA"}, {"ZH", "J"}, {"OV", "OFF"}, {"IY", "I"}, {"Y", "I"},
	{"I", "Y"}, {"W", "V"}, {"V", "W"}, {"TCH", "CH"}, {"CH", "TCH"}, {"KS", "X"}, {"X", "KS"},
	{"SS", "S"}, {"LL", "L"}, {"MM", "M"}, {"U", "OU"}, {"E", "A"}, {"A", "E"}, {"O", "U"},
}

// translit rewrites one word with a spelling variant.
func translit(rng *rand.Rand, word string) (string, bool) {
	up := strings.ToUpper(word)
	order := rng.Perm(len(translitRules))
	for _, k := range order {
		r := translitRules[k]
		// Vowel swaps inside a word only, never its first letter.
		i := strings.Index(up[1:], r[0])
		if len(up) < 4 || i < 0 {
			continue
		}
		i++
		out := up[:i] + r[1] + up[i+len(r[0]):]
		if word != up {
			out = strings.ToUpper(out[:1]) + strings.ToLower(out[1:])
		}
		return out, true
	}
	return "", false
}

// Report is what the benchmark measured.
type Report struct {
	// Seed of the query set; HeldOut when it is not TuneSeed.
	Seed            int64
	HeldOut         bool
	Entities, Names int
	// IndexBytes is the live heap the index holds (the parsed lists
	// not counted).
	IndexBytes    int64
	LoadTime      time.Duration
	RSSBytes      int64
	PeakRSSBytes  int64
	Threshold     float64
	Listed        int
	TopHit        int
	Ties          int
	ScoreTies     int
	SamePerson    int
	Found         int
	ListedAlerts  int
	Plain         int
	PlainAlerts   int
	ByVariant     map[string][2]int // variant -> [good, total]
	P50, P99, Max time.Duration
	// BestP50... are over the least of three runs per name.
	BestP50, BestP99, BestMax time.Duration
	// CPUP50... are the screening thread's CPU time per name.
	CPUP50, CPUP99, CPUMax time.Duration
	NamesPerSecond         float64
	Workers                int
	Misses                 []string
	PlainAlertsShown       []string
}

// Run screens every query once on one goroutine for the latency figures
// and the quality measures, then again on workers goroutines for the
// throughput.
func Run(ctx context.Context, idx *match.Index, ents []*lists.Entity, qs []Query, threshold float64, workers int) (*Report, error) {
	return run(ctx, idx, ents, qs, threshold, workers, true)
}

// Quality measures only accuracy: one pass, no timing runs.
func Quality(ctx context.Context, idx *match.Index, ents []*lists.Entity, qs []Query, threshold float64) (*Report, error) {
	return run(ctx, idx, ents, qs, threshold, 1, false)
}

// Options of Measure.
type Options struct {
	// Dirs are the list folders to load.
	Dirs []string
	// Seeds of the query sets, one report each.
	Seeds         []int64
	Listed, Plain int
	Threshold     float64
	Workers       int
}

// Measure loads the lists, builds the index and runs the benchmark on the
// query set of each seed: the whole of tambua bench sanctions but the
// printing.
func Measure(ctx context.Context, o Options) ([]*Report, error) {
	t0 := time.Now()
	snap, err := lists.LoadAll(o.Dirs...)
	if err != nil {
		return nil, err
	}
	heap0 := bench.HeapInUse()
	idx := match.New(snap.Entities)
	load := time.Since(t0)
	// The index's own memory: live heap after building it less before,
	// the parsed lists excluded.
	indexBytes := bench.HeapInUse() - heap0
	var reps []*Report
	for _, sd := range o.Seeds {
		qs := Build(snap.Entities, sd, o.Listed, o.Plain)
		runtime.GC()
		debug.FreeOSMemory()
		rss, _ := bench.RSS()
		rep, err := Run(ctx, idx, snap.Entities, qs, o.Threshold, o.Workers)
		if err != nil {
			return nil, err
		}
		rep.Seed, rep.HeldOut = sd, sd != TuneSeed
		rep.LoadTime = load
		rep.IndexBytes = indexBytes
		rep.RSSBytes = rss
		_, rep.PeakRSSBytes = bench.RSS()
		reps = append(reps, rep)
	}
	runtime.KeepAlive(snap)
	runtime.KeepAlive(idx)
	return reps, nil
}

func run(ctx context.Context, idx *match.Index, ents []*lists.Entity, qs []Query, threshold float64, workers int, timing bool) (*Report, error) {
	r := &Report{Threshold: threshold, ByVariant: map[string][2]int{}, Workers: workers}
	r.Entities, r.Names = idx.Len()
	lat := make([]time.Duration, 0, len(qs))
	wants := map[string]*lists.Entity{}
	for _, e := range ents {
		wants[e.List+":"+e.ID] = e
	}
	for _, q := range qs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		t0 := time.Now()
		hits := idx.Screen(q.Text, match.Options{})
		lat = append(lat, time.Since(t0))
		alert := len(hits) > 0 && hits[0].Score >= threshold
		vc := r.ByVariant[q.Variant]
		vc[1]++
		if q.Want == "" {
			r.Plain++
			if alert {
				r.PlainAlerts++
				vc[0]++
				if len(r.PlainAlertsShown) < 20 {
					r.PlainAlertsShown = append(r.PlainAlertsShown, fmt.Sprintf("%s -> %s %q %.3f", q.Text, key(hits[0]), hits[0].MatchedName, hits[0].Score))
				}
			}
			r.ByVariant[q.Variant] = vc
			continue
		}
		r.Listed++
		if alert {
			r.ListedAlerts++
		}
		wantScore, wantRank := -1.0, 0
		for _, h := range hits {
			if key(h) == q.Want {
				wantScore, wantRank = h.Score, h.Rank
				break
			}
		}
		if wantScore >= 0 {
			r.Found++
		}
		switch {
		case len(hits) > 0 && key(hits[0]) == q.Want:
			r.TopHit++
			vc[0]++
		case wantRank == 1 || (len(hits) > 0 && sameName(hits[0], wants[q.Want])):
			// Another entity listed under the same name, which the
			// matcher ranks as one tie (or the top hit's name is one of
			// the wanted entity's names): the same person on two lists,
			// or two listings of one name, which no screener can tell
			// apart.
			r.TopHit++
			r.Ties++
			vc[0]++
		case len(hits) > 0 && samePerson(hits[0].Entity, wants[q.Want]):
			// The same person listed by another list under another
			// spelling: they share a full date of birth or a passport.
			r.TopHit++
			r.SamePerson++
			vc[0]++
		default:
			if wantScore >= 0 && wantScore >= hits[0].Score {
				// The same score under another name: a miss, counted
				// apart.
				r.ScoreTies++
			}
			if len(r.Misses) < 200 {
				top := "no hit"
				if len(hits) > 0 {
					top = fmt.Sprintf("%s %q %.3f", key(hits[0]), hits[0].MatchedName, hits[0].Score)
				}
				r.Misses = append(r.Misses, fmt.Sprintf("[%s] %s want %s (%.3f) got %s", q.Variant, q.Text, q.Want, wantScore, top))
			}
		}
		r.ByVariant[q.Variant] = vc
	}
	// Two more passes: the least of three times per name is the cost of
	// the screening itself, without the scheduler's pauses on a shared
	// machine. Both are reported.
	if !timing {
		return r, nil
	}
	// CPU time of the screening thread per name: the cost of the
	// screening itself, free of the time the scheduler gave to others.
	runtime.LockOSThread()
	cpu := make([]time.Duration, 0, len(qs))
	for _, q := range qs {
		c0, ok := bench.ThreadCPU()
		if !ok {
			break
		}
		idx.Screen(q.Text, match.Options{})
		c1, _ := bench.ThreadCPU()
		cpu = append(cpu, c1-c0)
	}
	runtime.UnlockOSThread()
	r.CPUP50, r.CPUP99, r.CPUMax = percentiles(cpu)
	best := append([]time.Duration(nil), lat...)
	for pass := 0; pass < 2; pass++ {
		for i, q := range qs {
			t0 := time.Now()
			idx.Screen(q.Text, match.Options{})
			if d := time.Since(t0); d < best[i] {
				best[i] = d
			}
		}
	}
	r.P50, r.P99, r.Max = percentiles(lat)
	r.BestP50, r.BestP99, r.BestMax = percentiles(best)
	// Throughput: workers goroutines over the whole set, three rounds.
	var wg sync.WaitGroup
	next := make(chan string, 256)
	t0 := time.Now()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for q := range next {
				idx.Screen(q, match.Options{})
			}
		}()
	}
	total := 0
	for round := 0; round < 3; round++ {
		for _, q := range qs {
			next <- q.Text
			total++
		}
	}
	close(next)
	wg.Wait()
	r.NamesPerSecond = float64(total) / time.Since(t0).Seconds()
	return r, nil
}

func key(h match.Hit) string { return h.Entity.List + ":" + h.Entity.ID }

// Print writes the report for people.
func (r *Report) Print(w interface{ Write([]byte) (int, error) }) {
	pct := func(a, b int) float64 {
		if b == 0 {
			return 0
		}
		return 100 * float64(a) / float64(b)
	}
	fmt.Fprintf(w, "lists: %d entities, %d names; load %s; index %.1f MB; RSS %.1f MB (peak %.1f MB)\n",
		r.Entities, r.Names, r.LoadTime.Round(time.Millisecond), float64(r.IndexBytes)/1e6, float64(r.RSSBytes)/1e6, float64(r.PeakRSSBytes)/1e6)
	fmt.Fprintf(w, "listed queries: %d; true entity top hit %.2f%% (%d ties on an identical name, %d the same person on another list; not counted: %d ties on score under another name); found above floor %.2f%%; alert at %.2f %.2f%%\n",
		r.Listed, pct(r.TopHit, r.Listed), r.Ties, r.SamePerson, r.ScoreTies, pct(r.Found, r.Listed), r.Threshold, pct(r.ListedAlerts, r.Listed))
	for _, v := range ListedVariants {
		c := r.ByVariant[v]
		fmt.Fprintf(w, "  %-12s top hit %6.2f%% of %d\n", v, pct(c[0], c[1]), c[1])
	}
	fmt.Fprintf(w, "non-listed queries: %d; alert at %.2f: %.2f%%\n", r.Plain, r.Threshold, pct(r.PlainAlerts, r.Plain))
	for _, v := range PlainVariants {
		c := r.ByVariant[v]
		fmt.Fprintf(w, "  %-12s alerts %6.2f%% of %d\n", v, pct(c[0], c[1]), c[1])
	}
	fmt.Fprintf(w, "time per name, one run: p50 %s p99 %s max %s\n",
		r.P50.Round(time.Microsecond), r.P99.Round(time.Microsecond), r.Max.Round(time.Microsecond))
	fmt.Fprintf(w, "time per name, least of 3 runs: p50 %s p99 %s max %s\n",
		r.BestP50.Round(time.Microsecond), r.BestP99.Round(time.Microsecond), r.BestMax.Round(time.Microsecond))
	if r.CPUP50 > 0 {
		fmt.Fprintf(w, "CPU time per name: p50 %s p99 %s max %s\n",
			r.CPUP50.Round(time.Microsecond), r.CPUP99.Round(time.Microsecond), r.CPUMax.Round(time.Microsecond))
	}
	fmt.Fprintf(w, "throughput: %.0f names/s on %d goroutines (GOMAXPROCS %d)\n", r.NamesPerSecond, r.Workers, runtime.GOMAXPROCS(0))
}

// tokenSet is a name's normalised tokens in sorted order: two names with
// the same set are the same name for the non-listed share.
func tokenSet(name string) string {
	f := strings.Fields(match.Normalize(name))
	sort.Strings(f)
	return strings.Join(f, " ")
}

// sameName reports whether the hit's matched name is, as a token set, one
// of the names of the wanted entity.
func sameName(h match.Hit, want *lists.Entity) bool {
	if want == nil {
		return false
	}
	got := tokenSet(h.MatchedName)
	for _, n := range want.Names() {
		if tokenSet(n) == got {
			return true
		}
	}
	return false
}

func percentiles(d []time.Duration) (p50, p99, maxd time.Duration) {
	return bench.Percentile(d, 50), bench.Percentile(d, 99), bench.Percentile(d, 100)
}

// samePerson reports whether two entries of different lists are one
// person: a shared full date of birth or a shared passport number.
func samePerson(a, b *lists.Entity) bool {
	if a == nil || b == nil || a.List == b.List || a.Kind != lists.Person || b.Kind != lists.Person {
		return false
	}
	for _, da := range a.DOBs {
		for _, db := range b.DOBs {
			if da.Day != 0 && da == db {
				return true
			}
		}
	}
	for _, pa := range a.Passports {
		for _, pb := range b.Passports {
			if strings.EqualFold(strings.ReplaceAll(pa, " ", ""), strings.ReplaceAll(pb, " ", "")) {
				return true
			}
		}
	}
	return false
}
