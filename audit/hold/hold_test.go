package hold_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/hold"
	"github.com/auditlog/auditlog/internal/testkit/errtest"
)

const tenant = "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f"

var (
	t0      = time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	counsel = audit.Principal{UserID: "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0", Email: "counsel@acme.example", Role: hold.Role, TenantID: tenant}
	march   = hold.Request{Matter: "Acme v. Initech", Reason: "litigation hold letter of 2026-11-27", Reference: "CASE-2026-114",
		Scope: hold.Scope{From: ts(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)), To: ts(time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)), Q: "actor:bruno.19@stark-service.example -action:access"}}
)

func ts(t time.Time) *audit.Timestamp { v := audit.NewTimestamp(t); return &v }

// TestOnlyTheTenantsHolderPlacesAHold: the legal_hold role of the tenant
// places, changes and releases holds; its administrators, another
// tenant's holder and the operator team (whatever its reason) cannot;
// administrators and holders read them.
func TestOnlyTheTenantsHolderPlacesAHold(t *testing.T) {
	if _, rec, err := hold.Place(counsel, tenant, march, t0); err != nil || rec.Actor.Email != counsel.Email {
		t.Fatalf("the holder: %v %+v", err, rec.Actor)
	}
	for name, p := range map[string]audit.Principal{
		"an administrator":      {UserID: counsel.UserID, Email: "admin@acme.example", Role: audit.RoleAdmin, TenantID: tenant},
		"another tenant":        {UserID: counsel.UserID, Email: "counsel@initech.example", Role: hold.Role, TenantID: "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a"},
		"the operator team":     {UserID: counsel.UserID, Email: "ops@platform.example", Role: audit.RoleSuperadmin, TenantID: tenant, Reason: "ticket 7"},
		"the ingest credential": {Role: audit.RoleIngest},
	} {
		if _, _, err := hold.Place(p, tenant, march, t0); audit.ErrorCode(err) != audit.EFORBIDDEN {
			t.Errorf("%s placed a hold: %v", name, err)
		}
	}
	h, _, _ := hold.Place(counsel, tenant, march, t0)
	admin := audit.Principal{Email: "admin@acme.example", Role: audit.RoleAdmin, TenantID: tenant}
	if _, _, err := hold.AskRelease(admin, h, t0, hold.DefaultGrace); audit.ErrorCode(err) != audit.EFORBIDDEN {
		t.Fatalf("an administrator asked a release: %v", err)
	}
	if hold.CanRead(admin, tenant) != nil || hold.CanRead(counsel, tenant) != nil {
		t.Fatal("administrators and holders read the tenant's holds")
	}
	if hold.CanRead(audit.Principal{Role: audit.RoleSuperadmin, TenantID: tenant}, tenant) == nil {
		t.Fatal("the operator team read a tenant's holds")
	}
}

// TestABadHoldNamesEachMember: each bad member is named, the search
// language's errors under scope.q.
func TestABadHoldNamesEachMember(t *testing.T) {
	for _, c := range []struct {
		name   string
		r      hold.Request
		fields []string
	}{
		{"nothing", hold.Request{}, []string{"matter", "reason"}},
		{"a long matter", hold.Request{Matter: strings.Repeat("m", hold.MaxMatterBytes+1), Reason: "r"}, []string{"matter"}},
		{"a control character", hold.Request{Matter: "m\x07", Reason: "r", Reference: "x\ny"}, []string{"matter", "reference"}},
		{"a range backwards", hold.Request{Matter: "m", Reason: "r", Scope: hold.Scope{From: march.Scope.To, To: march.Scope.From}}, []string{"scope.to"}},
		{"a bad query", hold.Request{Matter: "m", Reason: "r", Scope: hold.Scope{Q: "acton:create"}}, []string{"scope.q"}},
		{"the whole tenant", hold.Request{Matter: "m", Reason: "r"}, nil},
	} {
		_, _, err := hold.Place(counsel, tenant, c.r, t0)
		if c.fields == nil {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if got := errtest.Fields(err); audit.ErrorCode(err) != audit.EINVALID || !slices.Equal(got, c.fields) {
			t.Errorf("%s: %v names %v, want %v", c.name, err, got, c.fields)
		}
	}
}

// TestAReleaseWaitsAndCanBeUndone: a release asked holds until its grace
// period ends; undone in that time, the hold is active again and can be
// released again; once released it changes no more, and its records,
// folded, say every step.
func TestAReleaseWaitsAndCanBeUndone(t *testing.T) {
	var records []audit.Event
	step := func(h hold.Hold, rec audit.Event, err error) hold.Hold {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if rec.Resource.Type != hold.ResourceType || rec.Resource.ID != h.ID || rec.Validate(rec.Timestamp.Time) != nil {
			t.Fatalf("record %+v: %v", rec, rec.Validate(rec.Timestamp.Time))
		}
		records = append(records, rec)
		return h
	}
	h := step(hold.Place(counsel, tenant, march, t0))
	day := 24 * time.Hour
	h = step(hold.AskRelease(counsel, h, t0.Add(day), hold.DefaultGrace))
	if st := h.State(t0.Add(7 * day)); st != hold.Releasing || !h.InForce(t0.Add(7*day)) {
		t.Fatalf("inside the grace period: %s", st)
	}
	if _, _, err := hold.AskRelease(counsel, h, t0.Add(2*day), hold.DefaultGrace); audit.ErrorCode(err) != audit.ECONFLICT {
		t.Fatalf("a second release of a releasing hold: %v", err)
	}
	h = step(hold.UndoRelease(counsel, h, t0.Add(3*day)))
	if h.State(t0.Add(30*day)) != hold.Active {
		t.Fatal("an undone release still released the hold")
	}
	changed := march
	changed.Scope.Q = "actor:bruno.19@stark-service.example"
	h = step(hold.Change(counsel, h, changed, t0.Add(4*day)))
	h = step(hold.AskRelease(counsel, h, t0.Add(5*day), time.Hour))
	after := t0.Add(5*day + time.Hour)
	if h.State(after) != hold.Released || h.InForce(after) {
		t.Fatalf("past its grace period: %s", h.State(after))
	}
	if _, _, err := hold.UndoRelease(counsel, h, after); audit.ErrorCode(err) != audit.ECONFLICT {
		t.Fatalf("a release undone after it took effect: %v", err)
	}
	if _, _, err := hold.Change(counsel, h, march, after); audit.ErrorCode(err) != audit.ECONFLICT {
		t.Fatalf("a released hold changed: %v", err)
	}
	other := step(hold.Place(counsel, tenant, hold.Request{Matter: "audit 2027", Reason: "regulator's request"}, t0.Add(6*day)))
	noise := audit.Event{TenantID: tenant, Resource: audit.Resource{Type: hold.ResourceType, ID: "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b"}, After: records[0].After}
	folded := hold.Fold(append(records, noise))
	if len(folded) != 2 || folded[0].ID != h.ID || folded[1].ID != other.ID || folded[0].Scope.Q != changed.Scope.Q || folded[0].Release == nil {
		t.Fatalf("folded %+v", folded)
	}
	if in := hold.InForce(folded, after); len(in) != 1 || in[0].ID != other.ID {
		t.Fatalf("in force after the release: %+v", in)
	}
	if in := hold.InForce(folded, t0.Add(5*day)); len(in) != 2 {
		t.Fatalf("in force before it: %+v", in)
	}
}

// TestTheScopeIsAListFilter: a hold's scope filters its tenant's events as
// the list does: its range, its free text and its qualified terms.
func TestTheScopeIsAListFilter(t *testing.T) {
	f, err := march.Scope.Filter(tenant)
	if err != nil {
		t.Fatal(err)
	}
	if f.TenantID != tenant || !f.From.Equal(march.Scope.From.Time) || !f.To.Equal(march.Scope.To.Time) || len(f.Terms) != 2 || f.Q != "" {
		t.Fatalf("filter %+v", f)
	}
	if f, _ := (hold.Scope{}).Filter(tenant); f.From != nil || f.To != nil || len(f.Terms) != 0 || f.HideSystem {
		t.Fatalf("the whole tenant: %+v", f)
	}
}

// TestProducersCannotSendAHoldsRecord: a record of a hold sent to the
// service (HTTP ingest, the Kafka topic: both decode with DecodeEvent) is
// refused naming resource.type, so a producer can neither place a hold
// nor release one.
func TestProducersCannotSendAHoldsRecord(t *testing.T) {
	_, rec, err := hold.Place(counsel, tenant, march, t0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := rec.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	_, err = audit.DecodeEvent(b, t0)
	if got := errtest.Fields(err); !slices.Equal(got, []string{"resource.type"}) {
		t.Fatalf("an ingested hold record: %v names %v, want resource.type", err, got)
	}
}

// TestTheLongestMatterStillMakesARecord: a matter of MaxMatterBytes (of
// multi-byte runes) gives records an event can carry, at every step.
func TestTheLongestMatterStillMakesARecord(t *testing.T) {
	r := march
	r.Matter = strings.Repeat("é", hold.MaxMatterBytes/2)
	h, rec, err := hold.Place(counsel, tenant, r, t0)
	if err != nil || rec.Validate(t0) != nil {
		t.Fatalf("placed: %v %v", err, rec.Validate(t0))
	}
	_, rec, err = hold.AskRelease(counsel, h, t0, hold.DefaultGrace)
	if err != nil || rec.Validate(t0) != nil {
		t.Fatalf("release asked: %v %v", err, rec.Validate(t0))
	}
}
