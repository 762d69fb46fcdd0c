package periodic

import (
	"github.com/auditlog/auditlog/audit/retention"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// TestDeliveryRecordIsAValidEvent: the record of a delivered digest, which
// the service writes into the tenant's log of its own accord, passes the
// validation every event passes, reads back to the digest it records, and
// is no retention record.
func TestDeliveryRecordIsAValidEvent(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	tenant := "7c9e6679-7425-40de-944b-e07fc1f90ae7"
	dg := &Digest{TenantID: tenant, WindowStart: audit.NewTimestamp(now.Add(-24 * time.Hour)), WindowEnd: audit.NewTimestamp(now), Signature: "c2ln", KeyID: "k",
		Files: []DigestFile{{Count: 7}}}
	rec := DeliveryRecord(dg, "auditlog/"+tenant+"/digest/x.json", now)
	if err := rec.Validate(now); err != nil {
		t.Fatalf("the delivery record does not validate: %v", err)
	}
	if k, sig, ok := DeliveredDigest(rec); !ok || k != "auditlog/"+tenant+"/digest/x.json" || sig != "c2ln" {
		t.Fatalf("read back %q %q %v", k, sig, ok)
	}
	if _, ok := retention.Leaves(rec); ok {
		t.Fatal("a delivery record read as a retention record")
	}
}
