package elasticsearch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// LifecycleReport says what one lifecycle pass did.
type LifecycleReport struct {
	Streams    int
	RolledOver []string // data streams rolled over
	Deleted    []string // backing indices deleted
	Failed     []string // data streams whose part of the pass failed
}

// RunLifecycle is one pass of the built-in lifecycle worker, which
// enforces retention where the cluster has no ILM (the test build). For
// each tenant data stream, with the policy of the tenant's current plan
// (read from the directory, so a plan change applies to data already
// stored):
//
//  1. roll the write index over when it is older than the policy's
//     rollover max_age or larger than its max_primary_shard_size, and not
//     empty (the same conditions ILM's rollover action uses);
//  2. delete each non-write backing index whose newest event is older than
//     the policy's delete min_age (the plan's retention). An empty
//     non-write index is deleted too.
//
// An event is so kept for at least its plan's retention and at most the
// retention plus the rollover max_age plus the pass interval. A stream
// whose part fails (named in Failed, its error joined into the one
// returned) does not stop the pass: the other streams are handled.
func (s *Store) RunLifecycle(ctx context.Context) (LifecycleReport, error) {
	var rep LifecycleReport
	streams, err := s.resolveStreams(ctx, s.AllStreamsPattern())
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
		if err := s.streamLifecycle(ctx, st, streamPlan, tenant, now, &rep); err != nil {
			if ctx.Err() != nil {
				return rep, ctx.Err()
			}
			rep.Failed = append(rep.Failed, st.Name)
			failed = append(failed, fmt.Errorf("%s: %w", st.Name, err))
		}
	}
	return rep, errors.Join(failed...)
}

// streamLifecycle is one stream's part of a pass. A failed rollover
// (the cluster at its shard limit refuses the new index) does not keep
// the stream's expired indices, whose deletion frees shards, from going.
func (s *Store) streamLifecycle(ctx context.Context, st stream, streamPlan audit.Plan, tenant string, now time.Time, rep *LifecycleReport) error {
	plan, err := s.Plan(ctx, tenant)
	switch {
	case audit.ErrorCode(err) == audit.ENOTFOUND:
		plan = streamPlan
	case err != nil:
		return err
	}
	pol := s.policies[plan]
	var ro struct {
		RolledOver bool `json:"rolled_over"`
	}
	rollErr := s.c.DoJSON(ctx, http.MethodPost, "/"+st.Name+"/_rollover", map[string]any{"conditions": map[string]any{
		"max_age": pol.RolloverMaxAge, "max_primary_shard_size": pol.RolloverMaxPrimaryShardSize, "min_docs": 1,
	}}, &ro)
	if rollErr != nil {
		rollErr = fmt.Errorf("rollover: %w", rollErr)
	} else if ro.RolledOver {
		rep.RolledOver = append(rep.RolledOver, st.Name)
		// The old write index is now deletable; list the stream again.
		again, err := s.resolveStreams(ctx, st.Name)
		if err != nil {
			return err
		}
		if len(again) == 1 {
			st = again[0]
		}
	}
	if len(st.BackingIndices) < 2 {
		return rollErr
	}
	newest, err := s.newestPerIndex(ctx, st.Name)
	if err != nil {
		return errors.Join(rollErr, err)
	}
	cutoff := now.Add(-pol.DeleteAfter)
	for _, idx := range st.BackingIndices[:len(st.BackingIndices)-1] { // never the write index
		ts, hasDocs := newest[idx]
		if hasDocs && !ts.Before(cutoff) {
			continue
		}
		res, err := s.c.Do(ctx, http.MethodDelete, "/"+idx, nil)
		if err != nil {
			return errors.Join(rollErr, err)
		}
		if res.Status != http.StatusOK && res.Status != http.StatusNotFound {
			return errors.Join(rollErr, fmt.Errorf("deleting %s: %w", idx, StatusError(http.MethodDelete, idx, res)))
		}
		rep.Deleted = append(rep.Deleted, idx)
	}
	return rollErr
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
