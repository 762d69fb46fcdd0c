package periodicexport_test

import (
	"testing"

	"github.com/auditlog/auditlog/audit/periodic"

	"github.com/auditlog/auditlog/periodicexport"
)

// TestDestination: a tenant's own bucket and prefix win over the
// deployment's, each on its own.
func TestDestination(t *testing.T) {
	for _, c := range []struct {
		st                   periodic.State
		bucket, prefix       string
		wantBucket, wantPref string
	}{
		{periodic.State{}, "deploy", "auditlog", "deploy", "auditlog"},
		{periodic.State{Bucket: "acme"}, "deploy", "auditlog", "acme", "auditlog"},
		{periodic.State{Prefix: "acme/audit"}, "deploy", "auditlog", "deploy", "acme/audit"},
		{periodic.State{Bucket: "acme", Prefix: "p"}, "", "auditlog", "acme", "p"},
	} {
		b, p := periodicexport.Destination(&c.st, c.bucket, c.prefix)
		if b != c.wantBucket || p != c.wantPref {
			t.Errorf("%+v: %s %s, want %s %s", c.st, b, p, c.wantBucket, c.wantPref)
		}
	}
}
