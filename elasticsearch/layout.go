package elasticsearch

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// Layout is where a tenant's new events are written.
//
//   - LayoutDedicated: the tenant's own data stream per plan,
//     <prefix>-events-<plan>-<tenant>, with its own backing indices.
//   - LayoutShared: its plan's shared data stream,
//     <prefix>-events-<plan>-shared, with the tenant id as the routing
//     key, in the document id (<tenant>:<event id>, so two tenants' ids
//     never collide) and as a filter of every read. The long tail of
//     small tenants costs no shard of its own: a plan's shared stream has
//     the backing indices of one tenant, whatever the number of tenants.
//
// A tenant's reads cover its dedicated streams and, while it has data
// there, the shared stream of its current plan (placement.SharedIn). A
// shared tenant that grows is promoted (Promote, or the lifecycle pass at
// StoreConfig.PromoteAbove events in a shared write index): its new events
// go to a dedicated stream and its shared data stays readable until it
// expires. A plan change of a tenant with shared data copies that data,
// within the new plan's retention, to where the tenant now writes
// (consolidate), because a shared stream's backing indices follow the
// retention of the plan they were written under.
type Layout string

// The layouts.
const (
	LayoutDedicated Layout = "dedicated"
	LayoutShared    Layout = "shared"
)

// ParseLayout returns the layout named s, or EINVALID.
func ParseLayout(s string) (Layout, error) {
	switch l := Layout(s); l {
	case LayoutDedicated, LayoutShared:
		return l, nil
	}
	return "", audit.Errorf(audit.EINVALID, "layout %q: want dedicated or shared", s)
}

// placement is a tenant's directory entry as the store routes by it.
type placement struct {
	Plan   audit.Plan `json:"plan"`
	Layout Layout     `json:"layout,omitempty"` // "" is dedicated (entries older than layouts)
	// SharedIn is the plan whose shared stream holds the tenant's shared
	// data, "" when it has none.
	SharedIn audit.Plan `json:"sharedIn,omitempty"`
	// MovedFrom is set by a plan change whose copy out of that plan's
	// shared stream is not known complete (a writer may still use its
	// cached plan); the lifecycle pass copies again until MovedAt is past
	// moveSettle.
	MovedFrom audit.Plan `json:"movedFrom,omitempty"`
	MovedAt   *time.Time `json:"movedAt,omitempty"`
}

func (p placement) shared() bool { return p.Layout == LayoutShared }

// SharedStreamName is the shared data stream of a plan.
func (s *Store) SharedStreamName(plan audit.Plan) string {
	return s.prefix() + "-events-" + string(plan) + "-shared"
}

// target is where one event is written: the data stream, the document id
// and the routing key ("" for none).
type target struct {
	index, docID, routing string
}

// targetOf returns where the tenant's event id goes under placement p.
func (s *Store) targetOf(p placement, tenantID, id string) target {
	if p.shared() {
		return target{index: s.SharedStreamName(p.Plan), docID: tenantID + ":" + id, routing: tenantID}
	}
	return target{index: s.StreamName(p.Plan, tenantID), docID: id}
}

// targetsOf is targetOf of each event, where places holds every
// event's tenant. A tenant's stream name is built once a batch, not once
// an event (a string an event; issue 58).
func (s *Store) targetsOf(places map[string]placement, events []audit.Event) []target {
	targets := make([]target, len(events))
	own := make(map[string]target, len(places)) // a tenant's own stream, docID unset
	for i := range events {
		tenant := events[i].TenantID
		p := places[tenant]
		if p.shared() { // the document id is built from both
			targets[i] = s.targetOf(p, tenant, events[i].ID)
			continue
		}
		t, ok := own[tenant]
		if !ok {
			t = s.targetOf(p, tenant, "")
			own[tenant] = t
		}
		t.docID = events[i].ID
		targets[i] = t
	}
	return targets
}

// readPattern is the comma-separated pattern of every stream that may
// hold the tenant's events.
func (s *Store) readPattern(ctx context.Context, tenantID string) (string, error) {
	p, err := s.place(ctx, tenantID)
	switch {
	case audit.ErrorCode(err) == audit.ENOTFOUND:
		return s.TenantPattern(tenantID), nil
	case err != nil:
		return "", err
	}
	return s.patternOf(p, tenantID), nil
}

func (s *Store) patternOf(p placement, tenantID string) string {
	pattern := s.TenantPattern(tenantID)
	if p.SharedIn != "" {
		pattern += "," + s.SharedStreamName(p.SharedIn)
	}
	return pattern
}

// place returns the tenant's placement, cached for TenantCacheTTL, or
// ENOTFOUND for an unknown tenant.
func (s *Store) place(ctx context.Context, tenantID string) (placement, error) {
	if p, ok := s.cached(tenantID); ok {
		return p, nil
	}
	p, err := s.readPlacement(ctx, tenantID)
	if err == nil {
		s.remember(tenantID, p)
	}
	return p, err
}

// readPlacement reads the directory entry.
func (s *Store) readPlacement(ctx context.Context, tenantID string) (placement, error) {
	p, _, found, err := getDoc[placement](ctx, s, s.TenantsIndex(), tenantID, "tenant "+tenantID)
	if err != nil {
		return placement{}, err
	}
	if !found {
		return placement{}, audit.Errorf(audit.ENOTFOUND, "tenant %s is not in the directory", tenantID)
	}
	if !p.Plan.Valid() {
		return placement{}, audit.Errorf(audit.EINTERNAL, "tenant %s has a malformed directory entry", tenantID)
	}
	return p, nil
}

// newPlacement is the placement of a tenant first seen on plan.
func (s *Store) newPlacement(plan audit.Plan) placement {
	p := placement{Plan: plan, Layout: s.cfg.NewTenants}
	if p.shared() {
		p.SharedIn = plan
	}
	return p
}

// Promote moves a tenant's new events to a dedicated stream of its plan.
// Its shared data stays where it is and readable until it expires. It
// returns ENOTFOUND for an unknown tenant.
func (s *Store) Promote(ctx context.Context, tenantID string) error {
	if _, err := s.readPlacementChecked(ctx, tenantID); err != nil {
		return err
	}
	now := s.cfg.Now().UTC()
	if err := s.c.DoJSON(ctx, http.MethodPost, "/"+s.TenantsIndex()+"/_update/"+tenantID+"?refresh=true",
		map[string]any{"doc": map[string]any{"layout": LayoutDedicated, "updatedAt": now}}, nil); err != nil {
		return fmt.Errorf("promoting tenant %s: %w", tenantID, err)
	}
	s.forget(tenantID)
	return nil
}

func (s *Store) readPlacementChecked(ctx context.Context, tenantID string) (placement, error) {
	if !audit.ValidUUID(tenantID) {
		return placement{}, audit.Errorf(audit.EINVALID, "tenant %q is not a UUID", tenantID)
	}
	return s.readPlacement(ctx, tenantID)
}

// promoteWindow is the span of recent events PromoteAbove counts.
const promoteWindow = 7 * 24 * time.Hour

// promoteGrown promotes the shared tenants with more than PromoteAbove
// events in the last promoteWindow of a shared stream (at most 100 per
// stream and pass).
func (s *Store) promoteGrown(ctx context.Context, rep *LifecycleReport) error {
	if s.cfg.PromoteAbove <= 0 {
		return nil
	}
	since := s.cfg.Now().Add(-promoteWindow)
	for _, plan := range audit.Plans {
		var out struct {
			Aggregations struct {
				Big struct {
					Buckets []struct {
						Key string `json:"key"`
					} `json:"buckets"`
				} `json:"big"`
			} `json:"aggregations"`
		}
		body := map[string]any{"size": 0, "track_total_hits": false,
			"query": map[string]any{"range": map[string]any{"@timestamp": map[string]any{"gte": since.UnixMilli(), "format": "epoch_millis"}}},
			"aggs":  map[string]any{"big": map[string]any{"terms": map[string]any{"field": "tenantId", "size": 100, "min_doc_count": s.cfg.PromoteAbove + 1}}}}
		if err := s.c.DoJSON(ctx, http.MethodPost, "/"+s.SharedStreamName(plan)+"/_search?ignore_unavailable=true&allow_no_indices=true", body, &out); err != nil {
			return err
		}
		for _, b := range out.Aggregations.Big.Buckets {
			p, err := s.readPlacement(ctx, b.Key)
			if err != nil || !p.shared() {
				continue // gone, or already promoted
			}
			if err := s.Promote(ctx, b.Key); err != nil {
				return err
			}
			rep.Promoted = append(rep.Promoted, b.Key)
		}
	}
	return nil
}

// Whereabouts says where a tenant's events live (auditlog tenant show).
type Whereabouts struct {
	Plan   audit.Plan
	Layout Layout
	// Writes is the data stream its new events go to.
	Writes string
	// Streams are the data streams its events are read from, with what
	// each holds.
	Streams []StreamUse
	// MovedFrom is the shared stream a plan change is still copying from.
	MovedFrom string
}

// StreamUse is one stream of a tenant: its backing indices, how many are
// closed (hibernated), and the tenant's events in it.
type StreamUse struct {
	Name          string
	Shared        bool
	Indices       int
	ClosedIndices int
	Events        int64
}

// Where returns where the tenant's events live, or ENOTFOUND.
func (s *Store) Where(ctx context.Context, tenantID string) (Whereabouts, error) {
	p, err := s.readPlacement(ctx, tenantID)
	if err != nil {
		return Whereabouts{}, err
	}
	w := Whereabouts{Plan: p.Plan, Layout: p.Layout, Writes: s.targetOf(p, tenantID, "").index}
	if w.Layout == "" {
		w.Layout = LayoutDedicated
	}
	if p.MovedFrom != "" {
		w.MovedFrom = s.SharedStreamName(p.MovedFrom)
	}
	streams, err := s.resolveStreams(ctx, s.patternOf(p, tenantID))
	if err != nil {
		return w, err
	}
	closed, err := s.closedIndices(ctx)
	if err != nil {
		return w, err
	}
	for _, st := range streams {
		u := StreamUse{Name: st.Name, Shared: strings.HasSuffix(st.Name, "-shared"), Indices: len(st.BackingIndices)}
		for _, idx := range st.BackingIndices {
			if closed[idx] {
				u.ClosedIndices++
			}
		}
		var out struct {
			Count int64 `json:"count"`
		}
		body := map[string]any{"query": map[string]any{"term": map[string]any{"tenantId": tenantID}}}
		if err := s.c.DoJSON(ctx, http.MethodPost, "/"+st.Name+"/_count?ignore_unavailable=true", body, &out); err != nil {
			return w, err
		}
		u.Events = out.Count
		w.Streams = append(w.Streams, u)
	}
	return w, nil
}
