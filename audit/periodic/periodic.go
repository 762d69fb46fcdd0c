package periodic

import (
	"context"
	"fmt"
	"github.com/auditlog/auditlog/audit/blob"
	"strconv"
	"strings"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// Interval is how long the windows of a tenant's periodic export are.
type Interval string

// The intervals: windows are closed UTC hours or days.
const (
	Hourly Interval = "hourly"
	Daily  Interval = "daily"
)

// Duration is the interval's window length; daily for "" or unknown.
func (i Interval) Duration() time.Duration {
	if i == Hourly {
		return time.Hour
	}
	return 24 * time.Hour
}

// ParseInterval accepts hourly or daily; EINVALID otherwise.
func ParseInterval(s string) (Interval, error) {
	switch Interval(s) {
	case Hourly, Daily:
		return Interval(s), nil
	}
	return "", audit.Errorf(audit.EINVALID, "interval %q: want hourly or daily", s)
}

// WindowStart is the start of the window of interval i that holds t.
func WindowStart(t time.Time, i Interval) time.Time {
	return t.UTC().Truncate(i.Duration())
}

// DigestRef names a digest of a chain: where it is and what it signed.
type DigestRef struct {
	Key         string          `json:"key"`
	Signature   string          `json:"signature"`
	TenantID    string          `json:"tenantId"`
	WindowStart audit.Timestamp `json:"windowStart"`
	WindowEnd   audit.Timestamp `json:"windowEnd"`
	Late        int             `json:"late"`
}

// State is a tenant's periodic export: its settings, where its
// chain stands, and the lease of the replica exporting it.
type State struct {
	TenantID string `json:"tenantId"`
	// Enabled turns the export on or off; nil leaves it to the plan (on
	// for Enterprise, off for the others).
	Enabled  *bool    `json:"enabled,omitempty"`
	Interval Interval `json:"interval,omitempty"` // "" is daily
	// Bucket and Prefix, when set, replace the deployment's for this
	// tenant.
	Bucket string `json:"bucket,omitempty"`
	Prefix string `json:"prefix,omitempty"`

	// NextStart is the start of the next window to export; zero before
	// the first.
	NextStart time.Time `json:"nextStart,omitzero"`
	// Head is the chain's newest digest; nil before the first.
	Head *DigestRef `json:"head,omitempty"`
	// LeaseOwner holds the tenant's export until LeaseUntil.
	LeaseOwner string    `json:"leaseOwner,omitempty"`
	LeaseUntil time.Time `json:"leaseUntil,omitzero"`
	// LastError is why the last pass stopped, until one succeeds;
	// Failures counts the passes that failed in a row, and RetryAt is when
	// the next may start (RetryDelay).
	LastError string    `json:"lastError,omitempty"`
	Failures  int       `json:"failures,omitempty"`
	RetryAt   time.Time `json:"retryAt,omitzero"`
	Rev       string    `json:"-"`
}

// Active reports whether the tenant's windows are exported under plan.
func (s *State) Active(plan audit.Plan) bool {
	if s.Enabled != nil {
		return *s.Enabled
	}
	return plan == audit.PlanEnterprise
}

// RetryDelay is how long a tenant's export waits after its n-th
// failed pass in a row: 1 minute, doubling, at most an hour. A
// destination that is down is not hammered, and nothing is dropped: the
// windows wait in the store.
func RetryDelay(n int) time.Duration {
	if n < 1 {
		return 0
	}
	if n > 7 {
		return time.Hour
	}
	return min(time.Minute<<(n-1), time.Hour)
}

// Failed records a failed pass at now.
func (s *State) Failed(err error, now time.Time) {
	s.LastError = err.Error()
	s.Failures++
	s.RetryAt = now.Add(RetryDelay(s.Failures))
}

// Claim takes the lease for owner until now+d, unless another owner
// holds it past now: then it returns ECONFLICT naming the holder.
func (s *State) Claim(owner string, now time.Time, d time.Duration) error {
	if s.LeaseOwner != "" && s.LeaseOwner != owner && s.LeaseUntil.After(now) {
		return audit.Errorf(audit.ECONFLICT, "the periodic export of tenant %s is held by %s until %s", s.TenantID, s.LeaseOwner, s.LeaseUntil.Format(time.RFC3339))
	}
	s.LeaseOwner, s.LeaseUntil = owner, now.Add(d)
	return nil
}

// DueWindow returns the next window to export at time now, if its end
// plus settle has passed.
func (s *State) DueWindow(now time.Time, settle time.Duration) (start, end time.Time, due bool) {
	start = s.NextStart
	// After a change from hourly to daily, the first window ends at the
	// next day: windows stay aligned and contiguous.
	end = WindowStart(start, s.Interval).Add(s.Interval.Duration())
	return start, end, !start.IsZero() && !end.Add(settle).After(now)
}

// Advance records a window's (or a late file's) digest as the chain's
// head; a window's moves NextStart past it.
func (s *State) Advance(d *Digest, key string) {
	s.Head = &DigestRef{Key: key, Signature: d.Signature, TenantID: d.TenantID, WindowStart: d.WindowStart, WindowEnd: d.WindowEnd, Late: d.Late}
	if d.Late == 0 {
		s.NextStart = d.WindowEnd.Time
	}
	s.LastError, s.Failures, s.RetryAt = "", 0, time.Time{}
}

// Record is one delivered window (Late 0) or late file: what the
// tenant API lists.
type Record struct {
	TenantID    string          `json:"tenantId"`
	WindowStart audit.Timestamp `json:"windowStart"`
	WindowEnd   audit.Timestamp `json:"windowEnd"`
	Late        int             `json:"late"`
	Count       int64           `json:"count"`
	SHA256      string          `json:"sha256"`
	DataKey     string          `json:"dataKey"`
	DigestKey   string          `json:"digestKey"`
	KeyID       string          `json:"keyId"`
	Bucket      string          `json:"bucket,omitempty"`
	DeliveredAt audit.Timestamp `json:"deliveredAt"`
}

// Store keeps the periodic export's state and records.
type Store interface {
	// State returns a tenant's state; a tenant never configured
	// nor exported gets a zero state (TenantID set, Rev ""). Errors:
	// EUNAVAILABLE.
	PeriodicState(ctx context.Context, tenantID string) (State, error)
	// PutPeriodicState stores s when its Rev is still the stored one (""
	// for none) and sets the new Rev; ECONFLICT when it changed meanwhile.
	PutPeriodicState(ctx context.Context, s *State) error
	// PutPeriodicRecord stores r, replacing the record of the same
	// tenant, window start and late number (a window re-exported after a
	// crash replaces its record).
	PutPeriodicRecord(ctx context.Context, r Record) error
	// PeriodicRecords lists a tenant's records newest window first (late
	// files after their window), at most limit, after the cursor a
	// previous page returned ("" for the first page), and the next
	// cursor ("" at the end).
	PeriodicRecords(ctx context.Context, tenantID, cursor string, limit int) ([]Record, string, error)
}

// RecordCursor is the cursor after a page of records: "" when the page
// is not full (the end).
func RecordCursor(page []Record, limit int) string {
	if len(page) < limit || len(page) == 0 {
		return ""
	}
	last := page[len(page)-1]
	return fmt.Sprintf("%d.%d", last.WindowStart.UnixMilli(), last.Late)
}

// ParseRecordCursor reads a RecordCursor ("" gives zeros); EINVALID
// naming the cursor otherwise.
func ParseRecordCursor(c string) (startMs int64, late int, err error) {
	if c == "" {
		return 0, 0, nil
	}
	a, b, ok := strings.Cut(c, ".")
	startMs, err1 := strconv.ParseInt(a, 10, 64)
	late, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || late < 0 {
		return 0, 0, audit.Errorf(audit.EINVALID, "cursor %q is not one this service returned", c)
	}
	return startMs, late, nil
}

// Settings are the parts of a tenant's periodic export an
// operator changes; nil leaves a part as it is.
type Settings struct {
	// Enabled: "on", "off", or "plan" (on for Enterprise).
	Enabled  *string   `json:"enabled,omitempty"`
	Interval *Interval `json:"interval,omitempty"`
	Bucket   *string   `json:"bucket,omitempty"` // "" for the deployment's
	Prefix   *string   `json:"prefix,omitempty"` // "" for the deployment's
}

// Validate checks the settings; EINVALID naming each bad field.
func (p Settings) Validate() error {
	var errs []audit.FieldError
	if p.Enabled != nil && *p.Enabled != "on" && *p.Enabled != "off" && *p.Enabled != "plan" {
		errs = append(errs, audit.FieldError{Field: "enabled", Message: "want on, off or plan"})
	}
	if p.Interval != nil {
		if _, err := ParseInterval(string(*p.Interval)); err != nil {
			errs = append(errs, audit.FieldError{Field: "interval", Message: "want hourly or daily"})
		}
	}
	if p.Bucket != nil && *p.Bucket != "" && !blob.ValidBucket(*p.Bucket) {
		errs = append(errs, audit.FieldError{Field: "bucket", Message: blob.BucketRule})
	}
	if p.Prefix != nil && *p.Prefix != "" && !blob.ValidPrefix(*p.Prefix) {
		errs = append(errs, audit.FieldError{Field: "prefix", Message: blob.PrefixRule})
	}
	if len(errs) > 0 {
		return &audit.Error{Code: audit.EINVALID, Message: "invalid periodic export settings", Fields: errs}
	}
	return nil
}

// Apply changes s by p (validated). A new bucket or prefix starts a new
// chain there: the old one stays whole and verifiable where it is, and
// the next window's digest says first.
func (s *State) Apply(p Settings) {
	if p.Enabled != nil {
		switch *p.Enabled {
		case "on", "off":
			on := *p.Enabled == "on"
			s.Enabled = &on
		default:
			s.Enabled = nil
		}
	}
	if p.Interval != nil {
		s.Interval = *p.Interval
	}
	moved := false
	if p.Bucket != nil && *p.Bucket != s.Bucket {
		s.Bucket, moved = *p.Bucket, true
	}
	if p.Prefix != nil && *p.Prefix != s.Prefix {
		s.Prefix, moved = *p.Prefix, true
	}
	if moved {
		s.Head = nil
	}
}
