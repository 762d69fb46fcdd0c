package hold

import (
	"strings"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/search"
)

// ResourceType is the resource type of a hold's records in the tenant's
// log. Producers cannot send it (audit.DecodeEvent refuses it).
const ResourceType = "legal_hold"

// Hold is a legal hold as its last record says.
type Hold struct {
	// ID is a UUID: the resource id of its records.
	ID        string `json:"id"`
	TenantID  string `json:"tenantId"`
	Matter    string `json:"matter"`
	Reason    string `json:"reason"`
	Reference string `json:"reference,omitempty"`
	Scope     Scope  `json:"scope"`
	// PlacedBy is the e-mail of the holder who placed it.
	PlacedBy string          `json:"placedBy"`
	PlacedAt audit.Timestamp `json:"placedAt"`
	// Release is set once a release is asked, until it is undone.
	Release *Release `json:"release,omitempty"`
}

// Scope is what a hold keeps: the tenant's events within From (inclusive)
// and To (exclusive), each optional, that match Q, a query of the search
// language (optional). An empty scope keeps every event of the tenant.
type Scope struct {
	From *audit.Timestamp `json:"from,omitempty"`
	To   *audit.Timestamp `json:"to,omitempty"`
	Q    string           `json:"q,omitempty"`
}

// Release is a release asked of a hold: it takes effect at EffectiveAt.
type Release struct {
	RequestedBy string          `json:"requestedBy"`
	RequestedAt audit.Timestamp `json:"requestedAt"`
	EffectiveAt audit.Timestamp `json:"effectiveAt"`
}

// State is where a hold stands.
type State string

// The states of a hold. A releasing hold still holds.
const (
	Active    State = "active"
	Releasing State = "releasing"
	Released  State = "released"
)

// State is h's state at now.
func (h *Hold) State(now time.Time) State {
	switch {
	case h.Release == nil:
		return Active
	case now.Before(h.Release.EffectiveAt.Time):
		return Releasing
	}
	return Released
}

// InForce reports whether h keeps its events at now (active or
// releasing).
func (h *Hold) InForce(now time.Time) bool { return h.State(now) != Released }

// Filter is the hold's scope as a filter of its tenant's events, the
// service's own records included. Errors: EINVALID naming scope.q.
func (s Scope) Filter(tenantID string) (audit.Filter, error) {
	f := audit.Filter{TenantID: tenantID}
	if s.From != nil {
		from := s.From.UTC()
		f.From = &from
	}
	if s.To != nil {
		to := s.To.UTC()
		f.To = &to
	}
	if strings.TrimSpace(s.Q) != "" {
		text, terms, err := search.Parse(s.Q)
		if err != nil {
			return f, renamed(err, "q", "scope.q")
		}
		f.Q, f.Terms = text, terms
	}
	return f, nil
}

// renamed is err with its field from renamed to, when it is an
// *audit.Error naming from.
func renamed(err error, from, to string) error {
	e, ok := err.(*audit.Error)
	if !ok {
		return err
	}
	out := *e
	out.Fields = append([]audit.FieldError(nil), e.Fields...)
	for i := range out.Fields {
		if out.Fields[i].Field == from || strings.HasPrefix(out.Fields[i].Field, from+".") {
			out.Fields[i].Field = to + strings.TrimPrefix(out.Fields[i].Field, from)
		}
	}
	return &out
}
