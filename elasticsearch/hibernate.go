package elasticsearch

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"slices"

	"github.com/auditlog/auditlog/audit"
)

// A stream whose data has all expired (an idle or departed tenant, or the
// stream a plan change left behind) is hibernated by the lifecycle pass:
// its expired indices are deleted and its write index, emptied by a
// rollover, is closed. A closed index holds no shard against
// cluster.max_shards_per_node and no heap; it stays in the cluster state.
// (The data stream API that could delete the stream itself is missing
// from some builds, and its delete cannot be made conditional on the
// stream still being empty.)
//
// The next write to a hibernated stream answers index_closed_exception:
// WriteEvents then wakes the stream with a rollover to a new write index
// and reports the events as retries, never rejects them. The closed index
// is then an older backing index; the next lifecycle pass opens it again
// and keeps or deletes it by its newest event like any other, so an event
// that reached it in the instant between the pass's check and its close
// is shown again, never deleted unseen.

// wake rolls each named stream over to a new, open write index, and
// returns the error of each target (by position) whose stream it could not
// wake: its event stays a retry (marked Full at the shard limit), and the
// next write tries again. Concurrent writers may both roll over; the extra
// empty index is deleted by the next lifecycle pass.
func (s *Store) wake(ctx context.Context, streams map[string]bool, targets []target) map[int]error {
	failed := map[string]error{}
	for _, name := range slices.Sorted(maps.Keys(streams)) {
		if err := s.c.DoJSON(ctx, http.MethodPost, "/"+name+"/_rollover", nil, nil); err != nil {
			failed[name] = err
		}
	}
	out := map[int]error{}
	for i, t := range targets {
		if err, ok := failed[t.index]; ok && streams[t.index] {
			out[i] = err
		}
	}
	return out
}

// closedIndices returns the closed backing indices of this service's
// streams.
func (s *Store) closedIndices(ctx context.Context) (map[string]bool, error) {
	var out struct {
		Indices []struct {
			Name       string   `json:"name"`
			Attributes []string `json:"attributes"`
		} `json:"indices"`
	}
	res, err := s.c.Do(ctx, http.MethodGet, "/_resolve/index/.ds-"+s.AllStreamsPattern()+"?expand_wildcards=all", nil)
	if err != nil {
		return nil, err
	}
	if res.Status == http.StatusNotFound {
		return map[string]bool{}, nil
	}
	if res.Status != http.StatusOK {
		return nil, StatusError(http.MethodGet, "_resolve/index", res)
	}
	if err := json.Unmarshal(res.Body, &out); err != nil {
		return nil, audit.Wrap(audit.EINTERNAL, err, "decoding _resolve/index")
	}
	closed := map[string]bool{}
	for _, ix := range out.Indices {
		if slices.Contains(ix.Attributes, "closed") {
			closed[ix.Name] = true
		}
	}
	return closed, nil
}
