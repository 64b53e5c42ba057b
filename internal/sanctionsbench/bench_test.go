package sanctionsbench

import (
	"context"
	"testing"

	"github.com/tambua/tambua/checks/sanctions/lists"
	"github.com/tambua/tambua/checks/sanctions/match"
	"github.com/tambua/tambua/internal/testdata"
)

func loadOFACUN(tb testing.TB) *lists.Snapshot {
	tb.Helper()
	snap, err := lists.LoadAll(testdata.Path(tb, "sanctions", "ofac_sdn_2021-07"), testdata.Path(tb, "sanctions", "un"))
	if err != nil {
		tb.Fatal(err)
	}
	return snap
}

// TestQuality holds the matcher to the goals of the issue on a query set
// of the held-out seed, never tuned on.
func TestQuality(t *testing.T) {
	snap := loadOFACUN(t)
	idx := match.New(snap.Entities)
	qs := Build(snap.Entities, HeldOutSeed, 1200, 800)
	rep, err := Quality(context.Background(), idx, snap.Entities, qs, match.DefaultThreshold)
	if err != nil {
		t.Fatal(err)
	}
	top := float64(rep.TopHit) / float64(rep.Listed)
	alerts := float64(rep.PlainAlerts) / float64(rep.Plain)
	t.Logf("seed %d: top hit %.4f, non-listed alerts %.4f", HeldOutSeed, top, alerts)
	for _, v := range ListedVariants {
		c := rep.ByVariant[v]
		t.Logf("  %-12s top hit %.4f of %d", v, float64(c[0])/float64(c[1]), c[1])
	}
	if top < 0.97 {
		t.Errorf("true entity top hit %.2f%%, want >= 97%%", 100*top)
	}
	if alerts > 0.02 {
		t.Errorf("non-listed alerts %.2f%%, want <= 2%%", 100*alerts)
	}
}

func BenchmarkScreen(b *testing.B) {
	snap := loadOFACUN(b)
	idx := match.New(snap.Entities)
	qs := Build(snap.Entities, TuneSeed, 3000, 2000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		idx.Screen(qs[i%len(qs)].Text, match.Options{})
	}
}
