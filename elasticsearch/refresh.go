package elasticsearch

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// refresher coalesces the refreshes of one index path: a caller that
// asks to see every write acknowledged before it asked is served by any
// refresh that started after it asked, its own or a concurrent caller's.
// Each tenant's stream, export and `Fresh` query asking at once (streams
// ask for each batch) then make one refresh of a shared data stream, not
// one each, which took Elasticsearch's time from the writes.
type refresher struct {
	mu    sync.Mutex
	paths map[string]*refreshState
}

type refreshState struct {
	inflight      chan struct{} // closed when the running refresh ends
	inflightStart time.Time
	doneStart     time.Time // when the latest successful refresh started
}

// Refresh implements audit.Refresher: every write of the tenant
// acknowledged before the call is searchable after it. Errors:
// EUNAVAILABLE.
func (s *Store) Refresh(ctx context.Context, tenantID string) error {
	path, err := s.tenantPath(ctx, tenantID, "_refresh")
	if err != nil {
		return err
	}
	return s.refresh.do(ctx, path, func(ctx context.Context) error {
		if err := s.c.DoJSON(ctx, http.MethodPost, path, nil, nil); err != nil {
			return audit.Wrap(audit.EUNAVAILABLE, err, "refreshing the tenant's streams")
		}
		return nil
	})
}

// do runs or joins a refresh of path that starts after the call.
func (r *refresher) do(ctx context.Context, path string, refresh func(context.Context) error) error {
	begin := time.Now()
	for {
		r.mu.Lock()
		if r.paths == nil {
			r.paths = map[string]*refreshState{}
		}
		st := r.paths[path]
		if st == nil {
			st = &refreshState{}
			r.paths[path] = st
		}
		switch {
		case st.doneStart.After(begin):
			r.mu.Unlock()
			return nil
		case st.inflight != nil:
			ch := st.inflight
			r.mu.Unlock()
			select {
			case <-ch: // then: was it one that started after this call?
			case <-ctx.Done():
				return audit.Wrap(audit.EUNAVAILABLE, ctx.Err(), "waiting for a refresh")
			}
			continue
		}
		ch, start := make(chan struct{}), time.Now()
		st.inflight, st.inflightStart = ch, start
		r.mu.Unlock()
		err := refresh(ctx)
		r.mu.Lock()
		if err == nil && start.After(st.doneStart) {
			st.doneStart = start
		}
		st.inflight = nil
		close(ch)
		r.mu.Unlock()
		return err
	}
}
