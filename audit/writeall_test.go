package audit

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// scriptedWriter answers each WriteEvents call from a script: a whole-batch
// error, or a status per event id (WriteCreated when the script has none).
type scriptedWriter struct {
	calls  [][]string
	script []func(ids []string) ([]WriteResult, error)
}

func (w *scriptedWriter) WriteEvents(_ context.Context, events []Event) ([]WriteResult, error) {
	ids := make([]string, len(events))
	for i, e := range events {
		ids[i] = e.ID
	}
	w.calls = append(w.calls, ids)
	n := len(w.calls) - 1
	if n < len(w.script) {
		return w.script[n](ids)
	}
	res := make([]WriteResult, len(ids))
	return res, nil // WriteCreated is the zero status
}

func statuses(m map[string]WriteStatus) func([]string) ([]WriteResult, error) {
	return func(ids []string) ([]WriteResult, error) {
		res := make([]WriteResult, len(ids))
		for i, id := range ids {
			res[i] = WriteResult{Status: m[id], Reason: fmt.Sprint(m[id])}
		}
		return res, nil
	}
}

func evs(ids ...string) []Event {
	out := make([]Event, len(ids))
	for i, id := range ids {
		out[i].ID = id
	}
	return out
}

// TestWriteSettledRetriesOnlyTheItemsToRetry: items answered WriteRetry
// are written again, alone, until settled; results come back in the
// caller's order; a whole-batch failure is retried when the retrier says
// so; nothing is dropped.
func TestWriteSettledRetriesOnlyTheItemsToRetry(t *testing.T) {
	down := errors.New("connection refused")
	w := &scriptedWriter{script: []func([]string) ([]WriteResult, error){
		func([]string) ([]WriteResult, error) { return nil, down },
		statuses(map[string]WriteStatus{"b": WriteRetry, "c": WriteDuplicate, "d": WriteRetry, "e": WriteConflict}),
		statuses(map[string]WriteStatus{"d": WriteRetry}),
	}}
	var waits, batchFailures, itemsRetried int
	res, err := WriteSettled(context.Background(), w, evs("a", "b", "c", "d", "e"), Retrier{
		Wait:         func(context.Context) bool { waits++; return true },
		BatchFailed:  func(err error, n int) bool { batchFailures += n; return errors.Is(err, down) },
		ItemsRetried: func(n int, _ WriteResult) { itemsRetried += n },
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []WriteStatus{WriteCreated, WriteCreated, WriteDuplicate, WriteCreated, WriteConflict}
	for i, r := range res {
		if r.Status != want[i] {
			t.Errorf("event %d: %v, want %v", i, r.Status, want[i])
		}
	}
	calls := fmt.Sprint(w.calls)
	if calls != "[[a b c d e] [a b c d e] [b d] [d]]" {
		t.Errorf("writes %s: want the whole batch twice, then only the items to retry", calls)
	}
	if waits != 3 || batchFailures != 5 || itemsRetried != 3 {
		t.Errorf("waits %d, batch failures %d, items retried %d; want 3, 5, 3", waits, batchFailures, itemsRetried)
	}
}

// TestWriteSettledStops: a whole-batch failure not to be retried is
// returned with no results; a retrier that gives up returns the context's
// error; a store answering the wrong number of results is an error, not
// a silent loss.
func TestWriteSettledStops(t *testing.T) {
	down := errors.New("down")
	w := &scriptedWriter{script: []func([]string) ([]WriteResult, error){func([]string) ([]WriteResult, error) { return nil, down }}}
	res, err := WriteSettled(context.Background(), w, evs("a"), Retrier{BatchFailed: func(error, int) bool { return false }})
	if !errors.Is(err, down) || res != nil {
		t.Fatalf("%v %v: want the store's error and no results", res, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	forever := &scriptedWriter{script: []func([]string) ([]WriteResult, error){
		statuses(map[string]WriteStatus{"a": WriteRetry}), statuses(map[string]WriteStatus{"a": WriteRetry}),
	}}
	_, err = WriteSettled(ctx, forever, evs("a"), Retrier{
		Wait:         func(ctx context.Context) bool { <-ctx.Done(); return false },
		ItemsRetried: func(int, WriteResult) {},
	})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("%v: want the context's error when the wait gives up", err)
	}
	short := &scriptedWriter{script: []func([]string) ([]WriteResult, error){func([]string) ([]WriteResult, error) { return []WriteResult{{}}, nil }}}
	if _, err := WriteSettled(context.Background(), short, evs("a", "b"), Retrier{BatchFailed: func(error, int) bool { return false }}); ErrorCode(err) != EINTERNAL {
		t.Fatalf("%v: a short answer must be an error", err)
	}
}
