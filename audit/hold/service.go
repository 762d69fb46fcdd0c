package hold

import (
	"context"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// Log is what the hold service reads and writes: the tenants' logs, where
// a hold's records are its only state.
type Log interface {
	audit.EventWriter
	audit.EventReader
	audit.EventScanner
}

// Service places, changes and releases holds by writing their records
// into the tenant's log, and reads them back from it. Retention (each
// store's purge or lifecycle pass) reads the same records, so a hold is
// in force once its record is written.
type Service struct {
	Log Log
	// Now is the clock (time.Now when nil); Grace the wait of a release
	// (DefaultGrace when zero).
	Now   func() time.Time
	Grace time.Duration
	// DefaultPlan is the plan of a tenant the directory does not know
	// (the stores' retention treats it so).
	DefaultPlan audit.Plan
}

func (s *Service) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

func (s *Service) grace() time.Duration {
	if s.Grace <= 0 {
		return DefaultGrace
	}
	return s.Grace
}

// Holds returns the tenant's holds as its log records them, in the order
// they were placed, for a reader CanRead allows. Errors: EFORBIDDEN,
// EUNAVAILABLE.
func (s *Service) Holds(ctx context.Context, p audit.Principal, tenantID string) ([]Hold, error) {
	if err := CanRead(p, tenantID); err != nil {
		return nil, err
	}
	return s.read(ctx, tenantID)
}

// read folds the tenant's hold records, read fresh (a hold just placed
// is seen), oldest first.
func (s *Service) read(ctx context.Context, tenantID string) ([]Hold, error) {
	q := audit.Query{Filter: audit.Filter{TenantID: tenantID, ResourceTypes: []string{ResourceType}},
		Sort: audit.Sort{Field: audit.SortTimestamp}, PageSize: audit.MaxPageSize, Page: 1, NoTotal: true, Fresh: true}
	var records []audit.Event
	for {
		res, err := s.Log.SearchEvents(ctx, q)
		if err != nil {
			return nil, err
		}
		records = append(records, res.Events...)
		if !res.HasMore || res.Next == nil {
			return Fold(records), nil
		}
		q.After = res.Next
	}
}

// Get returns one of the tenant's holds. Errors: EFORBIDDEN, ENOTFOUND,
// EUNAVAILABLE.
func (s *Service) Get(ctx context.Context, p audit.Principal, tenantID, id string) (Hold, error) {
	hs, err := s.Holds(ctx, p, tenantID)
	if err != nil {
		return Hold{}, err
	}
	for _, h := range hs {
		if h.ID == id {
			return h, nil
		}
	}
	return Hold{}, audit.Errorf(audit.ENOTFOUND, "no legal hold %s", id)
}

// Place places a hold of the tenant. Errors: those of Place, and of the
// write.
func (s *Service) Place(ctx context.Context, p audit.Principal, tenantID string, r Request) (Hold, error) {
	h, rec, err := Place(p, tenantID, r, s.now())
	if err != nil {
		return h, err
	}
	return h, s.write(ctx, rec)
}

// Change changes, AskRelease asks the release of, and UndoRelease undoes
// the waiting release of the tenant's hold id. Errors: those of Get (a
// holder reads), of the step (Change, AskRelease, UndoRelease) and of
// the write.
func (s *Service) Change(ctx context.Context, p audit.Principal, tenantID, id string, r Request) (Hold, error) {
	return s.step(ctx, p, tenantID, id, func(h Hold, now time.Time) (Hold, audit.Event, error) { return Change(p, h, r, now) })
}

// AskRelease: see Change.
func (s *Service) AskRelease(ctx context.Context, p audit.Principal, tenantID, id string) (Hold, error) {
	return s.step(ctx, p, tenantID, id, func(h Hold, now time.Time) (Hold, audit.Event, error) {
		return AskRelease(p, h, now, s.grace())
	})
}

// UndoRelease: see Change.
func (s *Service) UndoRelease(ctx context.Context, p audit.Principal, tenantID, id string) (Hold, error) {
	return s.step(ctx, p, tenantID, id, func(h Hold, now time.Time) (Hold, audit.Event, error) { return UndoRelease(p, h, now) })
}

func (s *Service) step(ctx context.Context, p audit.Principal, tenantID, id string, fn func(Hold, time.Time) (Hold, audit.Event, error)) (Hold, error) {
	if err := Authorize(p, tenantID); err != nil {
		return Hold{}, err
	}
	h, err := s.Get(ctx, p, tenantID, id)
	if err != nil {
		return h, err
	}
	h, rec, err := fn(h, s.now())
	if err != nil {
		return h, err
	}
	return h, s.write(ctx, rec)
}

// write stores a hold's record; the hold is in force once it is.
func (s *Service) write(ctx context.Context, rec audit.Event) error {
	res, err := s.Log.WriteEvents(ctx, []audit.Event{rec})
	if err != nil {
		return err
	}
	if r := res[0]; r.Status != audit.WriteCreated && r.Status != audit.WriteDuplicate {
		return audit.Errorf(audit.EUNAVAILABLE, "writing the legal hold's record: %s %s", r.Status, r.Reason)
	}
	return nil
}
