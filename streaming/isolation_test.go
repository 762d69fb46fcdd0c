package streaming_test

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/auditlog/auditlog/audit/search"
	"github.com/auditlog/auditlog/audit/vlog"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/internal/testkit/storetest"
	"github.com/auditlog/auditlog/streaming"
	"golang.org/x/sync/errgroup"
)

// capture keeps the batches a stream sends, accepting each.
type capture struct{ batches []streaming.Batch }

func (c *capture) Send(_ context.Context, _ stream.Destination, b streaming.Batch) (streaming.Outcome, time.Duration, string, error) {
	c.batches = append(c.batches, b)
	return streaming.Accepted, 0, "", nil
}

// unstored is the stream store of a test that checks what is sent, not
// what is stored: it takes every write.
type unstored struct{ stream.Store }

func (unstored) PutStream(context.Context, *stream.Stream) error { return nil }

func (unstored) SaveProgress(context.Context, *stream.Stream) error { return nil }

// filterGen makes filters of the search language from the values of both
// tenants' events: pasted ids, e-mails, addresses and request ids of the
// other tenant, qualifiers, prefixes, negations, ORs, dates, and noise.
type filterGen struct {
	r      *rand.Rand
	values []string
}

func newFilterGen(seed uint64, events []audit.Event) *filterGen {
	g := &filterGen{r: rand.New(rand.NewPCG(seed, 43))}
	for _, e := range events {
		g.values = append(g.values, e.ID, e.Actor.Email, e.Actor.IP, e.RequestID, e.Resource.ID, e.Actor.ID)
	}
	return g
}

func (g *filterGen) value() string { return g.values[g.r.IntN(len(g.values))] }

func (g *filterGen) term() string {
	v := g.value()
	switch g.r.IntN(16) {
	case 0:
		return "actor:" + v
	case 1:
		return "actor:" + strings.SplitN(v, "@", 2)[0][:min(3, len(v))] + "*"
	case 2:
		return "ip:" + v
	case 3:
		return "ip:10.0.0.0/8"
	case 4:
		return "request:" + v
	case 5:
		return "resource:" + v
	case 6:
		return "actor.id:" + v
	case 7:
		return []string{"action:access", "action:delete", "action:update,create", "type:queue", "type:ivr OR type:agent", "category:security", "outcome:failure", "crossTenant:true", "role:superadmin"}[g.r.IntN(9)]
	case 8:
		return fmt.Sprintf("created:>=2026-10-%02d", 1+g.r.IntN(28))
	case 9:
		return fmt.Sprintf("created:2026-10-%02d..2026-10-%02d", 1+g.r.IntN(10), 11+g.r.IntN(18))
	case 10:
		return `"` + v + `"`
	case 11:
		return []string{"queue", "grace*", "zendesk", "welcome", "wr*", "ag*"}[g.r.IntN(6)]
	case 12:
		return "reason:" + v
	case 13:
		return string([]byte{byte(33 + g.r.IntN(90)), byte(33 + g.r.IntN(90)), byte(33 + g.r.IntN(90))}) // noise
	default:
		return v // a pasted value
	}
}

// next is one filter of one to four terms, some negated, some ORed.
func (g *filterGen) next() string {
	var terms []string
	for range 1 + g.r.IntN(4) {
		t := g.term()
		switch g.r.IntN(6) {
		case 0:
			t = "-" + t
		case 1:
			t += " OR " + g.term()
		}
		terms = append(terms, t)
	}
	return strings.Join(terms, " ")
}

// TestStreamCarriesOnlyItsTenant: under 10,000 fuzzed filters on each
// store (each parsing; the ones that do not are refused when a stream is
// configured; 200 under the race detector, and scripts/test.sh runs the
// 10,000 without it), a stream of
// tenant A carries only tenant A's events, each once, with the leaf index
// the log gives it, even when the filter names tenant B's ids, e-mails and
// addresses.
func TestStreamCarriesOnlyItsTenant(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		store, d := sealedStore(t)
		carriesOnlyItsTenant(t, store, d, map[bool]int{false: 10000, true: 200}[raceDetector])
	})
	t.Run("elasticsearch", func(t *testing.T) {
		store, d := sealedES(t)
		carriesOnlyItsTenant(t, store, d, map[bool]int{false: 10000, true: 200}[raceDetector])
	})
}

func parses(filter string) bool {
	_, _, err := search.Parse(filter)
	return err == nil
}

// isolationWorkers is how many filters run at once.
const isolationWorkers = 8

// onlyTenantA checks the batches one filter sent: tenant A's events only,
// each at the leaf the log gives it. It returns how many events they held.
func onlyTenantA(a string, ofA map[string]bool, leaf map[string]uint64, batches []streaming.Batch) (int, error) {
	n := 0
	for _, b := range batches {
		if b.TenantID != a {
			return n, fmt.Errorf("a batch of tenant %s", b.TenantID)
		}
		for _, e := range b.Events {
			var ev struct{ ID, TenantID string }
			if err := json.Unmarshal(e.Event, &ev); err != nil {
				return n, err
			}
			id := audit.NormalizeID(ev.ID)
			if ev.TenantID != a || !ofA[id] || leaf[id] != e.LeafIndex {
				return n, fmt.Errorf("carried %s of tenant %s at leaf %d (its leaf: %d)", ev.ID, ev.TenantID, e.LeafIndex, leaf[id])
			}
			n++
		}
	}
	return n, nil
}

// streamStore is what a streamer reads.
type streamStore interface {
	stream.Store
	vlog.Store
	audit.EventReader
}

func carriesOnlyItsTenant(t *testing.T, store streamStore, d *storetest.Dataset, want int) {
	ctx := context.Background()
	ofA := map[string]bool{}
	for _, e := range d.Events {
		ofA[audit.NormalizeID(e.ID)] = true
	}
	leaf := map[string]uint64{}
	leaves, err := store.Leaves(ctx, d.A, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range leaves {
		leaf[audit.NormalizeID(l.EventID)] = uint64(l.Index)
	}
	gen := newFilterGen(7, d.All)
	var filters []string
	tried := 0
	for ; len(filters) < want; tried++ {
		if f := gen.next(); parses(f) {
			filters = append(filters, f)
		}
	}
	// The filters are independent: workers share them out, each with its
	// own streamer and destination, so the 10,000 take a fraction of the
	// time they took one after another on Elasticsearch.
	var delivered atomic.Int64
	next := make(chan string)
	g, gctx := errgroup.WithContext(ctx)
	for range isolationWorkers {
		g.Go(func() error {
			dest := &capture{}
			s := &streaming.Streamer{Streams: unstored{store}, Log: store, Events: store, BatchSize: 1000, Now: time.Now, MaskKey: accepttest.MaskKey,
				Dest: func(string) streaming.Destination { return dest }}
			for filter := range next {
				dest.batches = dest.batches[:0]
				st := &stream.Stream{ID: "s", TenantID: d.A, Name: "fuzz", Format: stream.FormatEvent, Filter: filter, State: stream.Active}
				if _, err := s.Step(gctx, st); err != nil {
					return fmt.Errorf("filter %q: %w", filter, err)
				}
				n, err := onlyTenantA(d.A, ofA, leaf, dest.batches)
				if err != nil {
					return fmt.Errorf("filter %q: %w", filter, err)
				}
				delivered.Add(int64(n))
			}
			return nil
		})
	}
	g.Go(func() error {
		defer close(next)
		for _, f := range filters {
			select {
			case next <- f:
			case <-gctx.Done():
				return nil
			}
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d filters tried, %d parsed, %d events delivered", tried, want, delivered.Load())
	if delivered.Load() == 0 {
		t.Fatal("no filter kept any event: the generator tests nothing")
	}
}
