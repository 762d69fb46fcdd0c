package periodic_test

import (
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/periodic"

	"github.com/auditlog/auditlog/audit"
)

func TestPeriodicSettings(t *testing.T) {
	str := func(s string) *string { return &s }
	iv := func(s string) *periodic.Interval { i := periodic.Interval(s); return &i }
	for _, c := range []struct {
		name string
		p    periodic.Settings
		bad  []string
	}{
		{"all good", periodic.Settings{Enabled: str("on"), Interval: iv("hourly"), Bucket: str("acme-audit.eu"), Prefix: str("exports/acme")}, nil},
		{"back to the defaults", periodic.Settings{Enabled: str("plan"), Bucket: str(""), Prefix: str("")}, nil},
		{"everything wrong", periodic.Settings{Enabled: str("yes"), Interval: iv("weekly"), Bucket: str("Acme_Bucket"), Prefix: str("/a/../b/")},
			[]string{"enabled", "interval", "bucket", "prefix"}},
		{"bucket edges", periodic.Settings{Bucket: str("-ab")}, []string{"bucket"}},
		{"prefix with a double slash", periodic.Settings{Prefix: str("a//b")}, []string{"prefix"}},
	} {
		err := c.p.Validate()
		var got []string
		if e, ok := err.(*audit.Error); ok {
			for _, f := range e.Fields {
				got = append(got, f.Field)
			}
		}
		if len(got) != len(c.bad) || (len(c.bad) > 0 && audit.ErrorCode(err) != audit.EINVALID) {
			t.Errorf("%s: fields %v (%v), want %v", c.name, got, err, c.bad)
		}
		for i := range got {
			if got[i] != c.bad[i] {
				t.Errorf("%s: fields %v, want %v", c.name, got, c.bad)
			}
		}
	}
}

func TestPeriodicApplyAndWindows(t *testing.T) {
	str := func(s string) *string { return &s }
	day := periodic.Daily
	st := periodic.State{TenantID: "t", Interval: periodic.Hourly, NextStart: time.Date(2026, 10, 1, 13, 0, 0, 0, time.UTC),
		Head: &periodic.DigestRef{Key: "k"}}
	st.Apply(periodic.Settings{Interval: &day, Enabled: str("off")})
	if st.Head == nil || st.Enabled == nil || *st.Enabled || st.Active(audit.PlanEnterprise) {
		t.Fatalf("after interval and off: %+v", st)
	}
	start, end, due := st.DueWindow(time.Date(2026, 10, 3, 0, 0, 0, 0, time.UTC), time.Minute)
	if !due || !start.Equal(st.NextStart) || !end.Equal(time.Date(2026, 10, 2, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("the window after hourly → daily: %s to %s (%v), want 13:00 to the next midnight", start, end, due)
	}
	st.Apply(periodic.Settings{Prefix: str("elsewhere"), Enabled: str("plan")})
	if st.Head != nil || st.Prefix != "elsewhere" || st.Enabled != nil || !st.Active(audit.PlanEnterprise) || st.Active(audit.PlanPro) {
		t.Fatalf("a new prefix starts a new chain, plan decides: %+v", st)
	}
	if err := st.Claim("a", time.Unix(0, 0), time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := st.Claim("b", time.Unix(30, 0), time.Minute); audit.ErrorCode(err) != audit.ECONFLICT {
		t.Fatalf("a held lease: %v", err)
	}
	if err := st.Claim("b", time.Unix(61, 0), time.Minute); err != nil {
		t.Fatalf("a lapsed lease: %v", err)
	}
}

func TestPeriodicRetryDelay(t *testing.T) {
	want := []time.Duration{0, time.Minute, 2 * time.Minute, 4 * time.Minute, 8 * time.Minute, 16 * time.Minute, 32 * time.Minute, time.Hour, time.Hour, time.Hour}
	for n, w := range want {
		if got := periodic.RetryDelay(n); got != w {
			t.Errorf("after %d failures: %s, want %s", n, got, w)
		}
	}
	if periodic.RetryDelay(1000) != time.Hour {
		t.Error("no ceiling")
	}
}
