package hold

import (
	"context"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// Plans gives a tenant's plan (audit.TenantDirectory), whose retention
// says what a release lets retention delete.
type Plans interface {
	Plan(ctx context.Context, tenantID string) (audit.Plan, error)
}

// Report is a hold with what it holds: the hold report's row.
type Report struct {
	Hold
	State State `json:"state"`
	// Events counts the tenant's events its scope matches now, First and
	// Last their time span (absent when none).
	Events int64            `json:"events"`
	First  *audit.Timestamp `json:"first,omitempty"`
	Last   *audit.Timestamp `json:"last,omitempty"`
	// ReleaseAt is when a release would take effect: the waiting
	// release's effective time, or now plus the grace for an active
	// hold; absent once released. PastRetentionAt counts the events of
	// its scope that are past the plan's retention then: what retention
	// deletes once the release takes effect, unless another hold in
	// force keeps them (Overlapping lists those whose time range meets
	// this one's).
	ReleaseAt       *audit.Timestamp `json:"releaseAt,omitempty"`
	PastRetentionAt int64            `json:"pastRetentionAt"`
	Overlapping     []string         `json:"overlapping,omitempty"`
}

// Reports returns the report of each of the tenant's holds, in the order
// they were placed. Errors: those of Holds, EUNAVAILABLE.
func (s *Service) Reports(ctx context.Context, p audit.Principal, tenantID string, plans Plans) ([]Report, error) {
	return s.reports(ctx, p, tenantID, plans, func(Hold) bool { return true })
}

// Report returns the report of one hold; only its own counts are read.
// Errors: those of Reports, ENOTFOUND.
func (s *Service) Report(ctx context.Context, p audit.Principal, tenantID, id string, plans Plans) (Report, error) {
	rs, err := s.reports(ctx, p, tenantID, plans, func(h Hold) bool { return h.ID == id })
	if err != nil {
		return Report{}, err
	}
	if len(rs) == 0 {
		return Report{}, audit.Errorf(audit.ENOTFOUND, "no legal hold %s", id)
	}
	return rs[0], nil
}

// reports returns the reports of the tenant's holds that want, each read
// against all of them (overlaps).
func (s *Service) reports(ctx context.Context, p audit.Principal, tenantID string, plans Plans, want func(Hold) bool) ([]Report, error) {
	hs, err := s.Holds(ctx, p, tenantID)
	if err != nil {
		return nil, err
	}
	plan, err := plans.Plan(ctx, tenantID)
	if err != nil && audit.ErrorCode(err) != audit.ENOTFOUND {
		return nil, err
	}
	now := s.now()
	out := []Report{} // an empty list answers [], not null
	for _, h := range hs {
		if !want(h) {
			continue
		}
		r, err := s.report(ctx, h, hs, plan, now)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func (s *Service) report(ctx context.Context, h Hold, all []Hold, plan audit.Plan, now time.Time) (Report, error) {
	r := Report{Hold: h, State: h.State(now)}
	f, err := h.Scope.Filter(h.TenantID)
	if err != nil {
		return r, err
	}
	if r.Events, err = s.Log.CountEvents(ctx, f); err != nil {
		return r, err
	}
	span, err := s.Log.EventSpan(ctx, f)
	if err != nil {
		return r, err
	}
	if span.Any {
		first, last := audit.NewTimestamp(span.First), audit.NewTimestamp(span.Last)
		r.First, r.Last = &first, &last
	}
	if r.State == Released {
		return r, nil
	}
	at := now.Add(s.grace())
	if h.Release != nil {
		at = h.Release.EffectiveAt.Time
	}
	ts := audit.NewTimestamp(at)
	r.ReleaseAt = &ts
	if plan == "" {
		plan = s.DefaultPlan
	}
	cutoff := audit.Cutoff(plan, at)
	if f.To == nil || f.To.After(cutoff) {
		f.To = &cutoff
	}
	if f.From == nil || f.From.Before(*f.To) {
		if r.PastRetentionAt, err = s.Log.CountEvents(ctx, f); err != nil {
			return r, err
		}
	}
	for _, o := range all {
		if o.ID != h.ID && o.InForce(at) && overlaps(h.Scope, o.Scope) {
			r.Overlapping = append(r.Overlapping, o.ID)
		}
	}
	return r, nil
}

// overlaps reports whether two scopes' time ranges meet.
func overlaps(a, b Scope) bool {
	before := func(to, from *audit.Timestamp) bool { return to != nil && from != nil && !from.Before(to.Time) }
	return !before(a.To, b.From) && !before(b.To, a.From)
}
