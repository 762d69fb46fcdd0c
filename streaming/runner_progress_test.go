package streaming_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/auditlog/auditlog/audit/stream"
)

// writes records which of a store's writes a runner made, in order.
type writes struct {
	stream.Store
	mu   sync.Mutex
	kind []string
}

func (w *writes) PutStream(ctx context.Context, s *stream.Stream) error {
	w.add("put")
	return w.Store.PutStream(ctx, s)
}

func (w *writes) SaveProgress(ctx context.Context, s *stream.Stream) error {
	w.add("progress")
	return w.Store.SaveProgress(ctx, s)
}

func (w *writes) add(k string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.kind = append(w.kind, k)
}

// TestATurnSavesProgressAndEndsWithAPut: within a runner's turn the
// claim and each batch's cursor are saved as progress (which
// Elasticsearch does not refresh for: a refresh per batch held each
// stream about 40 ms a batch), and the turn's last write is a PutStream,
// which the lists show at once: after the turn the list holds the cursor
// the turn reached (a runner of one worker, busy with it: the turn gives
// way after its budget). A turn that ends early (nothing more to send)
// ends with a PutStream too, and a turn with a worker free goes on to the
// log's end.
func TestATurnSavesProgressAndEndsWithAPut(t *testing.T) {
	s, st, rc, _ := setup(t)
	w := &writes{Store: s.Streams}
	s.Streams = w
	r := runner(s, "replica-a", 0) // Budget 3
	r.Workers = 1                  // its one worker busy: the turn ends after three batches
	if err := r.Pass(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.Wait()
	want := []string{"progress", "progress", "progress", "put"} // the claim, then three batches, the last put
	if len(rc.batches) != 3 || len(w.kind) != len(want) {
		t.Fatalf("%d batches, writes %v; want 3 batches and %v", len(rc.batches), w.kind, want)
	}
	for i := range want {
		if w.kind[i] != want[i] {
			t.Fatalf("writes %v, want %v", w.kind, want)
		}
	}
	list, err := w.Streams(context.Background(), st.TenantID)
	if err != nil || len(list) != 1 || list[0].Cursor != rc.batches[2].To {
		t.Fatalf("listed after the turn: %+v %v, want the cursor at %d", list, err, rc.batches[2].To)
	}
	// A turn whose budget outlasts the log ends when a step finds
	// nothing more to send (which writes nothing): with a put. So does a
	// turn with a worker free, whatever its budget: nobody waits for it.
	for _, budget := range []int{1000, 0} {
		turnToTheEnd(t, budget)
	}
}

// turnToTheEnd checks a turn of a runner of 4 workers and budget (0: the
// default) that delivers a stream's whole log: each batch's cursor saved
// as progress, then one put.
func turnToTheEnd(t *testing.T, budget int) {
	t.Helper()
	s2, st2, rc2, _ := setup(t)
	w2 := &writes{Store: s2.Streams}
	s2.Streams = w2
	r2 := runner(s2, "replica-a", 0)
	r2.Budget = budget
	if err := r2.Pass(context.Background()); err != nil {
		t.Fatal(err)
	}
	r2.Wait()
	ls, _ := s2.Log.LogState(context.Background(), st2.TenantID)
	n := len(rc2.batches)
	if n == 0 || rc2.batches[n-1].To != uint64(ls.Size) || len(w2.kind) != n+2 || w2.kind[n+1] != "put" || slices.Contains(w2.kind[:n+1], "put") {
		t.Fatalf("budget %d: a turn of %d batches to the log's end (%d leaves) wrote %v, want progress %d times, then one put", budget, n, ls.Size, w2.kind, n+1)
	}
	list, err := w2.Streams(context.Background(), st2.TenantID)
	if err != nil || len(list) != 1 || list[0].Cursor != uint64(ls.Size) {
		t.Fatalf("listed after the turn: %+v %v, want the cursor at %d", list, err, ls.Size)
	}
}
