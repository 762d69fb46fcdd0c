package elasticsearch

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestRefreshesCoalesce: callers asking at once share one refresh that
// started after each asked; a caller asking during a refresh that began
// before it waits for the next one; a failed refresh serves nobody else.
func TestRefreshesCoalesce(t *testing.T) {
	var r refresher
	var runs atomic.Int32
	gate := make(chan struct{})
	slow := func(context.Context) error { runs.Add(1); <-gate; return nil }
	// One refresh runs; ten callers arrive during it: they cannot use it
	// (it began before them), they share the next one.
	first := make(chan error, 1)
	go func() { first <- r.do(context.Background(), "/p", slow) }()
	for runs.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() { defer wg.Done(); _ = r.do(context.Background(), "/p", slow) }()
	}
	time.Sleep(20 * time.Millisecond)
	close(gate)
	wg.Wait()
	<-first
	if n := runs.Load(); n != 2 {
		t.Fatalf("%d refreshes for 11 callers, want 2 (the running one, then one for the ten that came during it)", n)
	}
	// Another path is refreshed on its own.
	if err := r.do(context.Background(), "/q", func(context.Context) error { runs.Add(1); return nil }); err != nil || runs.Load() != 3 {
		t.Fatalf("another path: %v, %d runs", err, runs.Load())
	}
}
