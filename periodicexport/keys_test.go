package periodicexport_test

import (
	"testing"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/periodicexport"
)

// TestDestination: a tenant's own bucket and prefix win over the
// deployment's, each on its own.
func TestDestination(t *testing.T) {
	for _, c := range []struct {
		st                   audit.PeriodicState
		bucket, prefix       string
		wantBucket, wantPref string
	}{
		{audit.PeriodicState{}, "deploy", "auditlog", "deploy", "auditlog"},
		{audit.PeriodicState{Bucket: "acme"}, "deploy", "auditlog", "acme", "auditlog"},
		{audit.PeriodicState{Prefix: "acme/audit"}, "deploy", "auditlog", "deploy", "acme/audit"},
		{audit.PeriodicState{Bucket: "acme", Prefix: "p"}, "", "auditlog", "acme", "p"},
	} {
		b, p := periodicexport.Destination(&c.st, c.bucket, c.prefix)
		if b != c.wantBucket || p != c.wantPref {
			t.Errorf("%+v: %s %s, want %s %s", c.st, b, p, c.wantBucket, c.wantPref)
		}
	}
}
