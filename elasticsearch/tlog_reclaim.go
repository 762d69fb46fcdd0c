package elasticsearch

import (
	"context"
	"fmt"
	"net/http"
)

// The log index's edge documents (the state, the last partial tile and
// bundle of each level) are rewritten by every sealing round, and the
// sealing queue's tickets are deleted once sealed: both indices hold
// superseded versions. Elasticsearch keeps a soft-deleted version until
// a merge drops it, and its merge policy reclaims deletes by their count:
// a segment whose deleted documents are under expunge_deletes_allowed
// (10% by default) of its documents keeps them, though a superseded
// state of a big round (its leaves) weighs hundreds of KiB. Measured on a
// log of a million leaves, 561 such versions beside 7,832 live documents
// were about 60 bytes an event (BENCHMARKS.md, log-elasticsearch). So the
// two indices are made with expunge_deletes_allowed 0 (mappings/tlog.json;
// Bootstrap puts it on indices made before), and every lifecycle pass
// asks Elasticsearch to merge away their deleted documents (reclaimLog):
// what a deployment holds is the live log plus at most a pass interval of
// superseded versions (an hour by default).

// reclaimSetting is the merge setting the log's two indices carry.
var reclaimSetting = []byte(`{"index":{"merge.policy.expunge_deletes_allowed":0}}`)

// putReclaimSetting puts reclaimSetting on the log index and the sealing
// queue (indices created before it keep the default otherwise).
func (s *Store) putReclaimSetting(ctx context.Context) error {
	path := "/" + s.TlogIndex() + "," + s.SealQueueIndex() + "/_settings"
	if err := s.c.DoJSON(ctx, http.MethodPut, path, reclaimSetting, nil); err != nil {
		return fmt.Errorf("setting the log indices' merge policy: %w", err)
	}
	return nil
}

// reclaimLog asks Elasticsearch to merge away the deleted documents of
// the log index and the sealing queue, without waiting for the merge (a
// task of the cluster: only segments holding deletes are rewritten, the
// recent small ones where the edge documents live).
func (s *Store) reclaimLog(ctx context.Context) error {
	path := "/" + s.TlogIndex() + "," + s.SealQueueIndex() + "/_forcemerge?only_expunge_deletes=true&wait_for_completion=false&allow_no_indices=true"
	if err := s.c.DoJSON(ctx, http.MethodPost, path, nil, nil); err != nil {
		return fmt.Errorf("merging away the log's superseded documents: %w", err)
	}
	return nil
}
