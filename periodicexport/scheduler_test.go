package periodicexport_test

import (
	"bufio"
	"compress/gzip"
	"context"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/blob"
	"github.com/auditlog/auditlog/audit/signing"

	"github.com/auditlog/auditlog/audit/periodic"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/internal/testkit/storetest"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
	"github.com/auditlog/auditlog/localfs"
	"github.com/auditlog/auditlog/periodicexport"
	"github.com/auditlog/auditlog/s3"
	"github.com/auditlog/auditlog/sqlite"
)

// store is one event store under the scheduler, with a way to make its
// writes visible.
type store struct {
	periodicexport.Source
	audit.EventWriter
	periodic.Store
	audit.TenantDirectory
	visible func(t *testing.T)
}

// stores runs fn against SQLite and Elasticsearch.
func stores(t *testing.T, fn func(t *testing.T, s store)) {
	t.Run("sqlite", func(t *testing.T) {
		s, err := sqlite.Open(context.Background(), sqlite.Config{Accept: accepttest.Acceptor, Path: filepath.Join(t.TempDir(), "a.db")})
		must(t, err)
		t.Cleanup(func() { s.Close() })
		fn(t, store{s, s, s, s, func(*testing.T) {}})
	})
	t.Run("elasticsearch", func(t *testing.T) {
		c, err := elasticsearch.New(elasticsearch.Config{URLs: []string{testenv.ElasticsearchURL(t)}, IndexPrefix: testenv.Name("auditlog-p")})
		must(t, err)
		ctx := context.Background()
		caps, err := c.Detect(ctx)
		must(t, err)
		s, err := elasticsearch.NewStore(c, caps, elasticsearch.StoreConfig{Accept: accepttest.Acceptor, TenantCacheTTL: time.Millisecond})
		must(t, err)
		must(t, s.Bootstrap(ctx))
		fn(t, store{s, s, s, s, func(t *testing.T) {
			must(t, s.Client().DoJSON(ctx, http.MethodPost, "/"+s.AllStreamsPattern()+"/_refresh?allow_no_indices=true", nil, nil))
		}})
	})
}

// s3Bucket is a new bucket on the test S3 server.
func s3Bucket(t *testing.T, endpoint string) blob.Store {
	env := testenv.S3(t)
	if endpoint == "" {
		endpoint = env.Endpoint
	}
	f, err := s3.Open(context.Background(), s3.Config{Endpoint: endpoint, Bucket: testenv.Name("periodic"), AccessKey: env.AccessKey,
		SecretKey: env.SecretKey, PathStyle: true, CreateBucket: true})
	must(t, err)
	return f
}

func testenvS3Endpoint(t *testing.T) string { return testenv.S3(t).Endpoint }

// clock is the scheduler's time, moved by the test.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) set(t time.Time) { c.mu.Lock(); defer c.mu.Unlock(); c.t = t }

func scheduler(t *testing.T, s store, b blob.Store, owner string, key ed25519.PrivateKey, c *clock) *periodicexport.Scheduler {
	pub := key.Public().(ed25519.PublicKey)
	der, _ := x509.MarshalPKIXPublicKey(pub)
	return &periodicexport.Scheduler{Store: s, Tenants: s, Events: s,
		Bucket:     func(*periodic.State) (blob.Store, string, error) { return b, "exports", nil },
		Key:        key,
		PublicKeys: map[string][]byte{signing.KeyID(pub): pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})},
		Settle:     30 * time.Minute, LateHorizon: 30 * 24 * time.Hour, Owner: owner, Lease: time.Minute, TempDir: t.TempDir(),
		Now: c.now, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

// seed writes n events of a new Enterprise tenant over [from, to), and
// returns the tenant and one of its events.
func seed(t *testing.T, s store, n int, from, to time.Time, interval periodic.Interval) (string, audit.Event) {
	g := gen.New(gen.Config{Seed: uint64(time.Now().UnixNano()), Tenants: 1, WithIDs: true, Start: from, End: to}, n)
	tenant := g.Tenants()[0].ID
	ctx := context.Background()
	must(t, s.SetPlan(ctx, tenant, audit.PlanEnterprise))
	if interval != periodic.Daily {
		st, err := s.PeriodicState(ctx, tenant)
		must(t, err)
		st.Interval = interval
		must(t, s.PutPeriodicState(ctx, &st))
	}
	events := make([]audit.Event, n)
	for i := range events {
		events[i] = g.Next()
	}
	storetest.Write(t, s, events)
	s.visible(t)
	return tenant, events[0]
}

// exported reads every data file of tenant in the bucket: the ids, each
// once, and the number of data files.
func exported(t *testing.T, b blob.Store, tenant string) (ids []string, files int) {
	ctx := context.Background()
	keys, err := b.List(ctx, "exports/"+tenant+"/")
	must(t, err)
	for _, k := range keys {
		if !strings.HasSuffix(k, ".ndjson.gz") {
			continue
		}
		files++
		r, err := b.Open(ctx, k)
		must(t, err)
		zr, err := gzip.NewReader(r)
		must(t, err)
		sc := bufio.NewScanner(zr)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			var e struct{ ID string }
			must(t, json.Unmarshal(sc.Bytes(), &e))
			ids = append(ids, e.ID)
		}
		must(t, sc.Err())
		r.Close()
	}
	slices.Sort(ids)
	return ids, files
}

// union checks that the files hold exactly the tenant's events.
func union(t *testing.T, s store, b blob.Store, tenant string) int {
	t.Helper()
	got, files := exported(t, b, tenant)
	want := storetest.Scan(t, s, audit.Filter{TenantID: tenant}, audit.Sort{Field: audit.SortTimestamp})
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("the files hold %d events, the store %d (first difference at %d)", len(got), len(want), firstDiff(got, want))
	}
	return files
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// verifyChain runs the offline verification of tenant's chain.
func verifyChain(t *testing.T, b blob.Store, tenant string, keys map[string]ed25519.PublicKey) (bool, string) {
	var lines []string
	rep, err := periodicexport.Verify(context.Background(), b, "exports", tenant, keys, periodicexport.Options{}, func(s string) { lines = append(lines, s) })
	must(t, err)
	return rep.OK(), strings.Join(lines, "\n")
}

func pubKeys(keys ...ed25519.PrivateKey) map[string]ed25519.PublicKey {
	m := map[string]ed25519.PublicKey{}
	for _, k := range keys {
		p := k.Public().(ed25519.PublicKey)
		m[signing.KeyID(p)] = p
	}
	return m
}

// TestTheChainStartsAtTheFirstVisibleEvent: a tenant in the directory
// whose first event the store does not show yet (Elasticsearch shows a
// write after its refresh) gets no chain start from a pass; once the
// event shows, the chain starts at its window and the window is exported.
// Starting at the pass's time dropped that window for good.
func TestTheChainStartsAtTheFirstVisibleEvent(t *testing.T) {
	stores(t, func(t *testing.T, s store) {
		ctx := context.Background()
		c := &clock{t: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)}
		_, priv, _ := ed25519.GenerateKey(nil)
		b := localfs.Dir{Root: t.TempDir()}
		sch := scheduler(t, s, b, "a", priv, c)
		g := gen.New(gen.Config{Seed: 3, Tenants: 1, WithIDs: true, Start: c.t.Add(-36 * time.Hour), End: c.t.Add(-35 * time.Hour)}, 5)
		tenant := g.Tenants()[0].ID
		must(t, s.SetPlan(ctx, tenant, audit.PlanEnterprise))
		must(t, sch.RunOnce(ctx)) // no event yet
		st, err := s.PeriodicState(ctx, tenant)
		must(t, err)
		if !st.NextStart.IsZero() {
			t.Fatalf("a pass before any event started the chain at %s", st.NextStart)
		}
		events := make([]audit.Event, 5)
		for i := range events {
			events[i] = g.Next()
		}
		storetest.Write(t, s, events)
		s.visible(t)
		must(t, sch.RunOnce(ctx))
		if files := union(t, s, b, tenant); files != 1 {
			t.Fatalf("%d files, want the first event's window", files)
		}
	})
}
