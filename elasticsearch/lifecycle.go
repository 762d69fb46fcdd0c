package elasticsearch

import (
	"context"
	"errors"
	"fmt"
	"github.com/auditlog/auditlog/audit/retention"
	"net/http"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/ilm"
)

// LifecycleReport says what one lifecycle pass did.
type LifecycleReport struct {
	Streams    int
	RolledOver []string // data streams rolled over
	Deleted    []string // backing indices deleted
	Failed     []string // data streams whose part of the pass failed
	// Hibernated are the streams whose data had all expired and whose
	// (emptied) write index this pass closed; Hibernating counts those
	// found already closed; Reopened the closed older indices of woken
	// streams, opened to be kept or deleted by their newest event.
	Hibernated  []string
	Hibernating int
	Reopened    []string
	// Promoted are the tenants moved out of a shared stream for their
	// volume (StoreConfig.PromoteAbove).
	Promoted []string
	// Retention is what the pass would not act on (issue 53): events
	// not as accepted, which keep their backing index (Kept), and
	// directory plans the tenants' logs do not record, put back
	// (Restored); Deleted counts nothing there (Deleted above names the
	// indices). Rescued counts the events copied out of an index before
	// it went, because their tenant's logged plan still keeps them.
	Retention retention.Pass
	Rescued   int
	// Released counts the events deleted from the held indices once no
	// legal hold kept them (holds.go).
	Released int
	// Reanalyzed counts the documents of an older mapping written again
	// with the word model's text (reanalyze.go).
	Reanalyzed int
}

// RunLifecycle is one pass of the built-in lifecycle worker. Where the
// cluster's ILM rolls over and deletes (ILMOwnsRetention), the pass only
// keeps the tenancy in order (tenancyPass). Otherwise (no ILM, as the test
// build; or ILM as a backstop, StoreConfig.ILMBackstop) it
// enforces retention too, for each data stream, with the policy of the
// tenant's current plan (read from the directory, so a plan change applies
// to data already stored; a shared stream has its plan's):
//
//  1. roll the write index over when it is older than the policy's
//     rollover max_age (by the wall clock, or by the store's since a pass
//     first saw it) or larger than its max_primary_shard_size, and not
//     empty (the same conditions ILM's rollover action uses);
//  2. delete each non-write backing index whose newest event is older than
//     the policy's delete min_age (the plan's retention). An empty
//     non-write index is deleted too;
//  3. hibernate a stream none of whose events is within the retention
//     (an idle or departed tenant, a stream a plan change left behind):
//     roll it over, delete the old indices, close the empty write index
//     (hibernate.go). A hibernated stream holds no open shard;
//  4. ask the cluster to merge away the log index's and the sealing
//     queue's superseded documents (tlog_reclaim.go), also where ILM owns
//     the retention.
//
// An event is so kept for at least its plan's retention and at most the
// retention plus the rollover max_age plus the pass interval; the read
// paths (audit.Retained) never show it past the retention. A stream
// whose part fails (named in Failed, its error joined into the one
// returned) does not stop the pass: the other streams are handled.
func (s *Store) RunLifecycle(ctx context.Context) (LifecycleReport, error) {
	var rep LifecycleReport
	if err := s.restorePlans(ctx, &rep); err != nil {
		return rep, fmt.Errorf("restoring the tenants' logged plans: %w", err)
	}
	if s.ILMOwnsRetention() {
		// ILM rolls over and deletes; the pass keeps the tenancy in order.
		return rep, errors.Join(append(s.tenancyPass(ctx, &rep), s.reclaimLog(ctx))...)
	}
	streams, err := s.resolveStreams(ctx, s.AllStreamsPattern())
	if err != nil {
		return rep, err
	}
	closed, err := s.closedIndices(ctx)
	if err != nil {
		return rep, err
	}
	now := s.cfg.Now()
	var failed []error
	for _, st := range streams {
		streamPlan, tenant, ok := s.parseStream(st.Name)
		if !ok {
			continue
		}
		rep.Streams++
		if err := s.streamLifecycle(ctx, st, streamPlan, tenant, now, closed, &rep); err != nil {
			if ctx.Err() != nil {
				return rep, ctx.Err()
			}
			rep.Failed = append(rep.Failed, st.Name)
			failed = append(failed, fmt.Errorf("%s: %w", st.Name, err))
		}
	}
	failed = append(failed, s.heldPass(ctx, now, &rep)...)
	failed = append(failed, s.tenancyPass(ctx, &rep)...)
	if err := s.reclaimLog(ctx); err != nil {
		failed = append(failed, err)
	}
	return rep, errors.Join(failed...)
}

// tenancyPass finishes plan changes' copies out of shared streams,
// promotes grown shared tenants and writes documents of an older mapping
// again (reanalyze.go).
func (s *Store) tenancyPass(ctx context.Context, rep *LifecycleReport) []error {
	var failed []error
	if err := s.finishMoves(ctx); err != nil {
		failed = append(failed, fmt.Errorf("finishing plan changes: %w", err))
	}
	if err := s.promoteGrown(ctx, rep); err != nil {
		failed = append(failed, fmt.Errorf("promoting grown tenants: %w", err))
	}
	if err := s.reanalyze(ctx, rep); err != nil {
		failed = append(failed, fmt.Errorf("reanalyzing older documents: %w", err))
	}
	return failed
}

// streamLifecycle is one stream's part of a pass. A failed rollover
// (the cluster at its shard limit refuses the new index) does not keep
// the stream's expired indices, whose deletion frees shards, from going.
// A stream whose data has all expired is hibernated (hibernate.go).
func (s *Store) streamLifecycle(ctx context.Context, st stream, streamPlan audit.Plan, tenant string, now time.Time, closed map[string]bool, rep *LifecycleReport) error {
	plan := streamPlan // a shared stream keeps the retention of its plan
	if tenant != "" {  // a tenant's own: the plan its log records (issue 53)
		plans, err := s.loggedPlans(ctx, []string{tenant})
		if err != nil {
			return err
		}
		plan = plans[tenant]
	}
	pol := s.policies[plan]
	cutoff := now.Add(-pol.DeleteAfter)
	last := len(st.BackingIndices) - 1
	for _, idx := range st.BackingIndices[:last] { // woken since it was hibernated
		if closed[idx] {
			if err := s.c.DoJSON(ctx, http.MethodPost, "/"+idx+"/_open?wait_for_active_shards=1", nil, nil); err != nil {
				return fmt.Errorf("reopening %s: %w", idx, err)
			}
			rep.Reopened = append(rep.Reopened, idx)
		}
	}
	if closed[st.BackingIndices[last]] {
		rep.Hibernating++
		return nil
	}
	newest, err := s.newestPerIndex(ctx, st.Name)
	if err != nil {
		return err
	}
	idle := allExpired(st.BackingIndices, newest, cutoff)
	write := st.BackingIndices[last]
	rolled, rollErr := s.rollover(ctx, st.Name, pol, hasDocs(newest, write) && (idle || s.aged(write, pol, now)))
	if rolled {
		rep.RolledOver = append(rep.RolledOver, st.Name)
		if st, newest, err = s.relist(ctx, st); err != nil {
			return errors.Join(rollErr, err)
		}
		idle = allExpired(st.BackingIndices, newest, cutoff)
		write = st.BackingIndices[len(st.BackingIndices)-1]
	}
	// recorded: a retention record went into the write index.
	recorded := false
	for _, idx := range st.BackingIndices[:len(st.BackingIndices)-1] { // never the write index
		if ts, hasDocs := newest[idx]; hasDocs && !ts.Before(cutoff) {
			continue
		}
		gone, wrote, err := s.retire(ctx, idx, now, rep)
		if err != nil {
			return errors.Join(rollErr, err)
		}
		recorded = recorded || wrote
		if !gone {
			continue // kept: what it holds is not as accepted (named)
		}
		rep.Deleted = append(rep.Deleted, idx)
		s.mu.Lock()
		delete(s.seen, idx)
		s.mu.Unlock()
	}
	if idle && rollErr == nil && !hasDocs(newest, write) && !recorded {
		if err := s.c.DoJSON(ctx, http.MethodPost, "/"+write+"/_close", nil, nil); err != nil {
			return fmt.Errorf("hibernating %s: %w", st.Name, err)
		}
		rep.Hibernated = append(rep.Hibernated, st.Name)
	}
	return rollErr
}

// rollover rolls the stream over: at once with now, else on the policy's
// conditions (rollover max_age or max_primary_shard_size, and not empty:
// those of ILM's rollover action).
func (s *Store) rollover(ctx context.Context, name string, pol ilm.Policy, now bool) (bool, error) {
	var body any
	if !now {
		body = map[string]any{"conditions": map[string]any{
			"max_age": pol.RolloverMaxAge, "max_primary_shard_size": pol.RolloverMaxPrimaryShardSize, "min_docs": 1,
		}}
	}
	var ro struct {
		RolledOver bool `json:"rolled_over"`
	}
	if err := s.c.DoJSON(ctx, http.MethodPost, "/"+name+"/_rollover", body, &ro); err != nil {
		return false, fmt.Errorf("rollover: %w", err)
	}
	return ro.RolledOver, nil
}

// relist reads a stream's backing indices and their newest events again.
func (s *Store) relist(ctx context.Context, st stream) (stream, map[string]time.Time, error) {
	again, err := s.resolveStreams(ctx, st.Name)
	if err != nil {
		return st, nil, err
	}
	if len(again) == 1 {
		st = again[0]
	}
	newest, err := s.newestPerIndex(ctx, st.Name)
	return st, newest, err
}

func (s *Store) deleteIndex(ctx context.Context, idx string) error {
	res, err := s.c.Do(ctx, http.MethodDelete, "/"+idx, nil)
	if err != nil {
		return err
	}
	if res.Status != http.StatusOK && res.Status != http.StatusNotFound {
		return fmt.Errorf("deleting %s: %w", idx, StatusError(http.MethodDelete, idx, res))
	}
	return nil
}

// allExpired reports whether no index holds an event at or after cutoff.
func allExpired(indices []string, newest map[string]time.Time, cutoff time.Time) bool {
	for _, idx := range indices {
		if ts, ok := newest[idx]; ok && !ts.Before(cutoff) {
			return false
		}
	}
	return true
}

func hasDocs(newest map[string]time.Time, idx string) bool { _, ok := newest[idx]; return ok }

// aged reports whether a write index was first seen by a pass of this
// process at least the policy's rollover max_age ago, by the store's
// clock. Elasticsearch's own max_age condition counts from the index's
// creation by the wall clock, which is never later; this one lets a
// store with a simulated clock (the tenancy benchmark) roll over as
// months of real time would. It forgets on restart, which only defers it.
func (s *Store) aged(index string, pol ilm.Policy, now time.Time) bool {
	d, err := ilm.ParseDuration(pol.RolloverMaxAge)
	if err != nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	seen, ok := s.seen[index]
	if !ok {
		s.seen[index] = now
		seen = now
	}
	return now.Sub(seen) >= d
}

// newestPerIndex returns the newest @timestamp of each backing index of a
// stream that holds documents.
func (s *Store) newestPerIndex(ctx context.Context, streamName string) (map[string]time.Time, error) {
	var out struct {
		Aggregations struct {
			Idx struct {
				Buckets []struct {
					Key    string `json:"key"`
					Newest struct {
						Value *float64 `json:"value"`
					} `json:"newest"`
				} `json:"buckets"`
			} `json:"idx"`
		} `json:"aggregations"`
	}
	body := map[string]any{"size": 0, "aggs": map[string]any{"idx": map[string]any{
		"terms": map[string]any{"field": "_index", "size": 10000},
		"aggs":  map[string]any{"newest": map[string]any{"max": map[string]any{"field": "@timestamp"}}},
	}}}
	// Every acknowledged write counts: an index is never judged by a
	// search that cannot see its newest events yet.
	if err := s.c.DoJSON(ctx, http.MethodPost, "/"+streamName+"/_refresh", nil, nil); err != nil {
		return nil, err
	}
	if err := s.c.DoJSON(ctx, http.MethodPost, "/"+streamName+"/_search?request_cache=false", body, &out); err != nil {
		return nil, err
	}
	m := map[string]time.Time{}
	for _, b := range out.Aggregations.Idx.Buckets {
		if b.Newest.Value != nil {
			m[b.Key] = time.UnixMilli(int64(*b.Newest.Value))
		}
	}
	return m, nil
}

// RolloverPeriod is the rollover max_age of the default ILM policy of
// plan (ilm/), for callers outside this package, which alone reads the
// policies: the tenancy benchmark counts backing indices with it.
func RolloverPeriod(plan audit.Plan) (time.Duration, error) {
	p, err := ilm.For(plan)
	if err != nil {
		return 0, err
	}
	return ilm.ParseDuration(p.RolloverMaxAge)
}
