package audit

import (
	"context"
	"time"
)

// Retained enforces each tenant's plan retention at read time, on every
// read path of a store: list, detail and span (EventReader), stats (through
// stats.Retained, which narrows with Clamp),
// counts and export scans (EventScanner), and so the history, compare and
// restore checks built on them. A store deletes expired data in whole
// backing indices or purge passes, so an event may stay stored for a
// while past its plan's retention; through Retained it is never shown.
//
// The cut-off is the instant now minus the plan's retention (Cutoff): an
// event one day past its plan's retention is invisible, one day inside is
// visible. A tenant missing from the directory reads under Default, the
// plan it would be given (EnsureTenant).
//
// Retained narrows filters only after the transport has checked and bound
// them (cursors, bucket counts): a narrowed range only drops events, so a
// cursor stays valid and a histogram only loses leading empty buckets.
type Retained struct {
	Reader    EventReader
	Scanner   EventScanner
	Directory TenantDirectory
	Default   Plan
	Now       func() time.Time
}

// Cutoff returns the oldest instant a tenant on plan sees at now.
func Cutoff(plan Plan, now time.Time) time.Time { return now.Add(-plan.Retention()) }

// Visible reports whether an event at ts is within plan's retention at now.
func Visible(plan Plan, ts, now time.Time) bool { return !ts.Before(Cutoff(plan, now)) }

// cutoff returns the tenant's cut-off now. Errors: EUNAVAILABLE.
func (r *Retained) cutoff(ctx context.Context, tenantID string) (time.Time, error) {
	plan, err := r.Directory.Plan(ctx, tenantID)
	if ErrorCode(err) == ENOTFOUND {
		plan, err = r.Default, nil
	}
	if err != nil {
		return time.Time{}, err
	}
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	return Cutoff(plan, now()).UTC(), nil
}

// Clamp returns f with From raised to the tenant's cut-off: what a read
// path that is not one of Retained's own (stats.Retained) narrows its
// filter with. Errors: EUNAVAILABLE.
func (r *Retained) Clamp(ctx context.Context, f Filter) (Filter, error) {
	c, err := r.cutoff(ctx, f.TenantID)
	if err != nil {
		return f, err
	}
	if f.From == nil || f.From.Before(c) {
		f.From = &c
	}
	return f, nil
}

// SearchEvents implements EventReader.
func (r *Retained) SearchEvents(ctx context.Context, q Query) (Result, error) {
	f, err := r.Clamp(ctx, q.Filter)
	if err != nil {
		return Result{}, err
	}
	q.Filter = f
	return r.Reader.SearchEvents(ctx, q)
}

// GetEvent implements EventReader: an expired event is ENOTFOUND, as if
// already deleted.
func (r *Retained) GetEvent(ctx context.Context, tenantID, id string) (Event, error) {
	e, err := r.Reader.GetEvent(ctx, tenantID, id)
	if err != nil {
		return e, err
	}
	c, err := r.cutoff(ctx, tenantID)
	if err != nil {
		return Event{}, err
	}
	if e.Timestamp.Before(c) {
		return Event{}, Errorf(ENOTFOUND, "no audit event %s", id)
	}
	return e, nil
}

// EventSpan implements EventReader.
func (r *Retained) EventSpan(ctx context.Context, f Filter) (Span, error) {
	f, err := r.Clamp(ctx, f)
	if err != nil {
		return Span{}, err
	}
	return r.Reader.EventSpan(ctx, f)
}

// CountEvents implements EventScanner.
func (r *Retained) CountEvents(ctx context.Context, f Filter) (int64, error) {
	f, err := r.Clamp(ctx, f)
	if err != nil {
		return 0, err
	}
	return r.Scanner.CountEvents(ctx, f)
}

// ScanEvents implements EventScanner.
func (r *Retained) ScanEvents(ctx context.Context, f Filter, s Sort, fn func([]Event) error) error {
	f, err := r.Clamp(ctx, f)
	if err != nil {
		return err
	}
	return r.Scanner.ScanEvents(ctx, f, s, fn)
}
