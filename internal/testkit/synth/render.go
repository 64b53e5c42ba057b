package synth

import (
	"context"
	"fmt"
	"sync"
)

// Render makes samples 0..n-1 on workers goroutines (at least one) and
// hands each to each as it is made, from those goroutines, so each must
// be safe to call concurrently. It stops handing out samples at the
// first error, which names its sample, or when ctx ends, and returns
// that error or ctx's.
func (gen *Generator) Render(ctx context.Context, n, workers int, each func(i int, s *Sample) error) error {
	workers = max(workers, 1)
	jobs := make(chan int)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				s, err := gen.Sample(ctx, i)
				if err == nil {
					err = each(i, s)
				}
				if err != nil {
					errs <- fmt.Errorf("sample %d: %w", i, err)
					cancel()
					return
				}
			}
		}()
	}
feed:
	for i := 0; i < n; i++ {
		select {
		case jobs <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	return ctx.Err()
}
