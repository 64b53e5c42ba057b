package sanctionsbench

import (
	"os"
	"sort"
	"testing"
	"time"

	"github.com/tambua/tambua/checks/sanctions/match"
)

func TestSlowest(t *testing.T) {
	if os.Getenv("SLOW") == "" {
		t.Skip()
	}
	snap := loadOFACUN(t)
	idx := match.New(snap.Entities)
	qs := Build(snap.Entities, 7, 3000, 2000)
	type qt struct {
		q string
		d time.Duration
	}
	var all []qt
	for _, q := range qs {
		best := time.Hour
		for r := 0; r < 5; r++ {
			t0 := time.Now()
			idx.Screen(q.Text, match.Options{})
			if d := time.Since(t0); d < best {
				best = d
			}
		}
		all = append(all, qt{q.Text, best})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].d < all[j].d })
	t.Logf("p50 %s p99 %s max %s", all[len(all)/2].d, all[len(all)*99/100].d, all[len(all)-1].d)
	for _, a := range all[len(all)-15:] {
		t.Logf("%s %q", a.d, a.q)
	}
}
