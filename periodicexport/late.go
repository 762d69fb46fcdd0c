package periodicexport

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/auditlog/auditlog/audit/blob"
	"github.com/auditlog/auditlog/audit/stats"

	"github.com/auditlog/auditlog/audit/periodic"

	"github.com/auditlog/auditlog/audit"
)

// late writes a late file for each window exported within LateHorizon
// whose events in the store now outnumber those in its files: the events
// missing from them, found by merging the files (each in file order) with
// the store's scan, in constant memory.
func (s *Scheduler) late(ctx context.Context, w *Writer, st *periodic.State) error {
	iv := st.Interval.Duration()
	from, to := periodic.WindowStart(s.Now().Add(-s.LateHorizon), st.Interval), st.NextStart
	if st.Head == nil || !from.Before(to) {
		return nil
	}
	exported := map[int64][]periodic.Record{}
	for cursor := ""; ; {
		page, next, err := s.Store.PeriodicRecords(ctx, st.TenantID, cursor, 500)
		if err != nil {
			return err
		}
		for _, r := range page {
			exported[r.WindowStart.UnixMilli()] = append(exported[r.WindowStart.UnixMilli()], r)
		}
		if next == "" || (len(page) > 0 && page[len(page)-1].WindowStart.Before(from)) {
			break
		}
		cursor = next
	}
	stats, err := s.Events.EventStats(ctx, stats.Query{Filter: audit.Filter{TenantID: st.TenantID, From: &from, To: &to}, Interval: iv})
	if err != nil {
		return err
	}
	for _, b := range stats.Histogram {
		recs := exported[b.Start.UnixMilli()]
		var n int64
		for _, r := range recs {
			n += r.Count
		}
		if len(recs) == 0 || b.Count <= n {
			continue
		}
		win := Window{TenantID: st.TenantID, Start: b.Start.Time, End: b.Start.Add(iv), Late: len(recs)}
		if err := s.deliver(ctx, w, st, win, s.missing(ctx, w.Bucket, recs, s.windowEvents(ctx, win))); err != nil {
			return err
		}
	}
	return nil
}

// fileKey orders events in files: timestamp, then id.
type fileKey struct {
	ts time.Time
	id string
}

func (a fileKey) less(b fileKey) bool {
	return a.ts.Before(b.ts) || (a.ts.Equal(b.ts) && a.id < b.id)
}

// fileStream reads the keys of one exported file in order.
type fileStream struct {
	sc   *bufio.Scanner
	head fileKey
	ok   bool
	err  error
}

func (f *fileStream) next() {
	f.ok = false
	if !f.sc.Scan() {
		f.err = f.sc.Err()
		return
	}
	var line struct {
		ID        string          `json:"id"`
		Timestamp audit.Timestamp `json:"timestamp"`
	}
	if f.err = json.Unmarshal(f.sc.Bytes(), &line); f.err == nil {
		f.head, f.ok = fileKey{line.Timestamp.Time, line.ID}, true
	}
}

// missing yields the events of all that none of recs' files holds.
func (s *Scheduler) missing(ctx context.Context, b blob.Store, recs []periodic.Record, all Events) Events {
	return func(yield func(*audit.Event) error) error {
		var streams []*fileStream
		for _, r := range recs {
			rc, err := b.Open(ctx, r.DataKey)
			if err != nil {
				return err
			}
			defer rc.Close()
			zr, err := gzip.NewReader(rc)
			if err != nil {
				return err
			}
			f := &fileStream{sc: bufio.NewScanner(io.Reader(zr))}
			f.sc.Buffer(make([]byte, 64<<10), 16<<20)
			f.next()
			streams = append(streams, f)
		}
		return all(func(e *audit.Event) error {
			k := fileKey{e.Timestamp.Time, e.ID}
			held := false
			for _, f := range streams {
				for f.ok && f.head.less(k) {
					f.next()
				}
				if f.err != nil {
					return f.err
				}
				held = held || (f.ok && f.head.id == k.id && f.head.ts.Equal(k.ts))
			}
			if held {
				return nil
			}
			return yield(e)
		})
	}
}
