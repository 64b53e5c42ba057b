package synth_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/tambua/tambua/docdefs"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/internal/testkit/synth"
)

func TestRender(t *testing.T) {
	d, _ := docdefs.Default().Definition("ke_national_id")
	gen, err := synth.New(synth.Options{Definitions: []*idv.DocumentDefinition{d}, Seed: 7, Difficulty: synth.Easy})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var mu sync.Mutex
	seen := map[int]string{}
	if err := gen.Render(ctx, 3, 2, func(i int, s *synth.Sample) error {
		mu.Lock()
		defer mu.Unlock()
		seen[i] = s.Truth.Config
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 3 || seen[0] != "ke_national_id" || seen[2] == "" {
		t.Errorf("rendered %v, want samples 0, 1 and 2", seen)
	}

	disk := errors.New("disk full")
	err = gen.Render(ctx, 3, 0, func(i int, _ *synth.Sample) error {
		if i == 1 {
			return disk
		}
		return nil
	})
	if !errors.Is(err, disk) || !strings.HasPrefix(err.Error(), "sample 1: ") {
		t.Errorf("error %v, want sample 1's", err)
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := gen.Render(cancelled, 3, 1, func(int, *synth.Sample) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: error %v", err)
	}
}
