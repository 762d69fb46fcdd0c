package periodicexport_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/blob"
	"github.com/auditlog/auditlog/audit/signing"

	"github.com/auditlog/auditlog/audit/periodic"

	"github.com/google/uuid"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/testkit/storetest"
)

var (
	oct1 = time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	oct4 = time.Date(2026, 10, 4, 0, 0, 0, 0, time.UTC)
)

// TestThreeDaysThenALateEventThenARotation: three days of events make
// exactly three daily windows whose files hold exactly the store's
// events, and the chain verifies; an event arriving for an exported day
// goes into a late file, and the chain still verifies; after a key
// rotation, each digest verifies against its own key.
func TestThreeDaysThenALateEventThenARotation(t *testing.T) {
	stores(t, func(t *testing.T, s store) {
		ctx := context.Background()
		b := s3Bucket(t, "")
		tenant, sample := seed(t, s, 3000, oct1, oct4, periodic.Daily)
		c := &clock{t: oct4.Add(30 * time.Minute)}
		keyA := newKey(t)
		// A backfill is one line at info, each window one at debug.
		var logged bytes.Buffer
		first := scheduler(t, s, b, "a", keyA, c)
		first.Log = slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelInfo}))
		must(t, first.RunOnce(ctx))
		if files := union(t, s, b, tenant); files != 3 {
			t.Fatalf("%d data files for three days, want 3", files)
		}
		if lines := strings.Split(strings.TrimSpace(logged.String()), "\n"); len(lines) != 1 ||
			!strings.Contains(lines[0], `msg="periodic export pass delivered" windows=3 tenants=1 events=3000`) {
			t.Fatalf("the pass logged:\n%s", logged.String())
		}
		if ok, out := verifyChain(t, b, tenant, pubKeys(keyA)); !ok || !strings.Contains(out, "verified 3 digests") {
			t.Fatalf("verify:\n%s", out)
		}
		// A late event for October 2nd.
		e := withTime(sample, tenant, oct1.Add(36*time.Hour))
		storetest.Write(t, s, []audit.Event{e})
		s.visible(t)
		must(t, scheduler(t, s, b, "a", keyA, c).RunOnce(ctx))
		if files := union(t, s, b, tenant); files != 4 {
			t.Fatalf("%d data files after a late event, want 4 (one late file)", files)
		}
		lateKey := periodic.DataKey("exports", tenant, oct1.Add(24*time.Hour), oct1.Add(48*time.Hour), 1)
		if ids, _ := exported(t, filtered{b, lateKey}, tenant); len(ids) != 1 || ids[0] != e.ID {
			t.Fatalf("the late file %s holds %v, want the late event", lateKey, ids)
		}
		if ok, out := verifyChain(t, b, tenant, pubKeys(keyA)); !ok || !strings.Contains(out, "verified 4 digests") {
			t.Fatalf("verify after the late file:\n%s", out)
		}
		// Rotation: a day later, signed with key B.
		keyB := newKey(t)
		idB := signing.KeyID(keyB.Public().(ed25519.PublicKey))
		storetest.Write(t, s, []audit.Event{withTime(e, tenant, oct4.Add(5*time.Hour))})
		s.visible(t)
		c.set(oct4.Add(24*time.Hour + 30*time.Minute))
		must(t, scheduler(t, s, b, "a", keyB, c).RunOnce(ctx))
		if ok, out := verifyChain(t, b, tenant, pubKeys(keyA, keyB)); !ok || !strings.Contains(out, "verified 5 digests") {
			t.Fatalf("verify with both keys:\n%s", out)
		}
		if ok, out := verifyChain(t, b, tenant, pubKeys(keyB)); ok || !strings.Contains(out, "UNKNOWN KEY") {
			t.Fatalf("verify with key B only passed:\n%s", out)
		}
		keys, err := b.List(ctx, "exports/"+tenant+"/keys/")
		if err != nil || len(keys) != 2 || !strings.Contains(strings.Join(keys, " "), idB) {
			t.Fatalf("public keys in the tenant's prefix: %v %v", keys, err)
		}
	})
}

func withTime(e audit.Event, tenant string, ts time.Time) audit.Event {
	e.TenantID, e.ID, e.Timestamp = tenant, "evt_audit_"+uuid.NewString(), audit.NewTimestamp(ts)
	return e
}

// filtered is a bucket that lists only one key.
type filtered struct {
	blob.Store
	key string
}

func (f filtered) List(context.Context, string) ([]string, error) { return []string{f.key}, nil }

// TestHourlyTwoReplicas: in hourly mode three days are 72 windows; two
// replicas running at once export each exactly once.
func TestHourlyTwoReplicas(t *testing.T) {
	stores(t, func(t *testing.T, s store) {
		ctx := context.Background()
		b := s3Bucket(t, "")
		tenant, _ := seed(t, s, 1500, oct1, oct4, periodic.Hourly)
		c := &clock{t: oct4.Add(30 * time.Minute)}
		key := newKey(t)
		var wg sync.WaitGroup
		for _, owner := range []string{"replica-1", "replica-2"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sc := scheduler(t, s, b, owner, key, c)
				for i := 0; i < 20; i++ {
					_ = sc.RunOnce(ctx)
				}
			}()
		}
		wg.Wait()
		if files := union(t, s, b, tenant); files != 72 {
			t.Fatalf("%d data files for three days of hours, want 72", files)
		}
		if ok, out := verifyChain(t, b, tenant, pubKeys(key)); !ok || !strings.Contains(out, "verified 72 digests") {
			t.Fatalf("verify:\n%s", out)
		}
	})
}
