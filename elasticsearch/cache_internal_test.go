package elasticsearch

import (
	"fmt"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// TestPlacementCacheDropsExpiredEntries: the writer's placement cache
// holds about the tenants seen within its TTL, not every tenant ever
// seen: ten waves of 5,000 new tenants, one TTL apart, leave at most two
// waves cached, and a live entry survives the sweeps.
func TestPlacementCacheDropsExpiredEntries(t *testing.T) {
	now := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	s := &Store{cfg: StoreConfig{TenantCacheTTL: 30 * time.Second, Now: func() time.Time { return now }}, tenants: map[string]cachedPlacement{}}
	p := placement{Plan: audit.PlanStarter, Layout: LayoutShared, SharedIn: audit.PlanStarter}
	for wave := range 10 {
		s.remember("kept", p) // seen in every wave: never expires
		for i := range 5000 {
			s.remember(fmt.Sprintf("w%d-t%d", wave, i), p)
		}
		now = now.Add(31 * time.Second)
	}
	if n := len(s.tenants); n > 2*5000+1 {
		t.Fatalf("after 10 waves of 5,000 tenants the cache holds %d entries, want at most two waves", n)
	}
	now = now.Add(-31 * time.Second)
	if _, ok := s.cached("kept"); !ok {
		t.Fatal("a tenant seen within the TTL was dropped")
	}
}
