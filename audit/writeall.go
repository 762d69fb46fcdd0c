package audit

import (
	"context"
	"time"
)

// Retrier is how WriteSettled retries: Wait sleeps before each retry
// (false when the caller gives up, its context ended), BatchFailed hears
// of a write that failed as a whole and says whether to retry it,
// ItemsRetried hears of items answered WriteRetry (with the last of their
// results), and Wrote (optional) times every write.
type Retrier struct {
	Wait         func(ctx context.Context) bool
	BatchFailed  func(err error, events int) (retry bool)
	ItemsRetried func(events int, last WriteResult)
	Wrote        func(took time.Duration)
}

// WriteSettled writes events with w until each has a final result
// (created, duplicate, conflict or rejected): the items answered
// WriteRetry are written again, only they, after r.Wait, for as long as it
// takes. Nothing is dropped: it returns one final result per event, in
// order, or an error and no results when a whole-batch failure is not to
// be retried (r.BatchFailed), or when r.Wait gives up (then ctx's error).
func WriteSettled(ctx context.Context, w EventWriter, events []Event, r Retrier) ([]WriteResult, error) {
	final := make([]WriteResult, len(events))
	pending := make([]int, len(events))
	for i := range pending {
		pending[i] = i
	}
	batch := events
	for len(pending) > 0 {
		start := time.Now()
		res, err := w.WriteEvents(ctx, batch)
		if r.Wrote != nil {
			r.Wrote(time.Since(start))
		}
		if err == nil && len(res) != len(batch) {
			err = Errorf(EINTERNAL, "the store answered %d results for %d events", len(res), len(batch))
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if !r.BatchFailed(err, len(batch)) {
				return nil, err
			}
			if !r.Wait(ctx) {
				return nil, ctx.Err()
			}
			continue
		}
		var next []int
		var last WriteResult
		for j, wr := range res {
			if wr.Status == WriteRetry {
				next, last = append(next, pending[j]), wr
				continue
			}
			final[pending[j]] = wr
		}
		if len(next) == 0 {
			break
		}
		r.ItemsRetried(len(next), last)
		if !r.Wait(ctx) {
			return nil, ctx.Err()
		}
		pending, batch = next, make([]Event, len(next))
		for j, i := range next {
			batch[j] = events[i]
		}
	}
	return final, nil
}
