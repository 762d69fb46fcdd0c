package seal_test

import (
	"context"
	"crypto/ed25519"
	"github.com/auditlog/auditlog/audit/retention"
	"github.com/auditlog/auditlog/audit/vlog"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/seal"
)

// memLog is a tenant's log held in memory, as a saved copy of the API
// holds one (logapi.Dir): what Check reads, with no store under it, so
// that the cases below need no database. Its checkpoints are signed.
type memLog struct {
	mu      sync.Mutex
	tenant  string
	signer  note.Signer
	leaves  []vlog.Leaf
	events  []audit.Event
	signed  []byte
	onCheck func(*memLog) // run at each checkpoint read after the first
	reads   int
}

func newMemLog(t *testing.T) (*memLog, vlog.Keys) {
	t.Helper()
	pub, priv, _ := ed25519.GenerateKey(nil)
	tenant := "7b4a1c52-5e0f-4d52-9d7e-0c1f2a3b4c5d"
	s, _, err := seal.NewSigner(vlog.Origin("auditlog.test", tenant), priv)
	if err != nil {
		t.Fatal(err)
	}
	return &memLog{tenant: tenant, signer: s}, vlog.NewKeys("auditlog.test", pub)
}

// add stores e and, with sealed, makes it the next leaf.
func (m *memLog) add(e audit.Event, sealed bool) {
	e.TenantID = m.tenant
	m.events = append(m.events, e)
	if sealed {
		m.leaves = append(m.leaves, vlog.Leaf{Index: int64(len(m.leaves)), EventID: e.ID, Hash: vlog.LeafHash(e)})
	}
}

// sign signs a checkpoint of the leaves so far.
func (m *memLog) sign(t *testing.T) {
	t.Helper()
	var hs []tlog.Hash
	read := tlog.HashReaderFunc(func(ix []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(ix))
		for i, x := range ix {
			out[i] = hs[x]
		}
		return out, nil
	})
	for i, l := range m.leaves {
		stored, err := tlog.StoredHashesForRecordHash(int64(i), l.Hash, read)
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, stored...)
	}
	root, err := tlog.TreeHash(int64(len(m.leaves)), read)
	if err != nil {
		t.Fatal(err)
	}
	cp := vlog.Checkpoint{Origin: vlog.Origin("auditlog.test", m.tenant), Size: int64(len(m.leaves)), Root: root}
	if m.signed, err = note.Sign(&note.Note{Text: cp.Text()}, m.signer); err != nil {
		t.Fatal(err)
	}
}

func (m *memLog) SignedCheckpoint(context.Context, bool) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.reads++; m.reads > 1 && m.onCheck != nil {
		m.onCheck(m)
	}
	return m.signed, nil
}

func (m *memLog) Leaves(_ context.Context, start int64, n int) ([]vlog.Leaf, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if start >= int64(len(m.leaves)) {
		return nil, nil
	}
	return append([]vlog.Leaf(nil), m.leaves[start:min(int(start)+n, len(m.leaves))]...), nil
}

func (m *memLog) Events(_ context.Context, fn func([]audit.Event) error) error {
	return fn(append([]audit.Event(nil), m.events...))
}

func events(n int) []audit.Event {
	g := gen.New(gen.Config{Seed: 7, Tenants: 1, WithIDs: true}, n)
	out := make([]audit.Event, n)
	for i := range out {
		out[i] = g.Next()
	}
	return out
}

func kinds(rep seal.Report) string {
	var out []string
	for _, f := range rep.Findings {
		out = append(out, f.String())
	}
	return strings.Join(out, "\n")
}

// TestCheckJudgesEveryRowAndLeaf: Check reads the leaves, then the rows
// once, judging each as it comes; each case is one thing a row or a leaf
// can be, and what Check must say of it.
func TestCheckJudgesEveryRowAndLeaf(t *testing.T) {
	evs := events(40)
	now := time.Now()
	purged := func(m *memLog, leaves retention.LeafRange, sealed bool) {
		d := retention.Deletion{TenantID: m.tenant, Plan: audit.PlanStarter, Before: now.Add(-audit.PlanStarter.Retention()), Deleted: leaves.To - leaves.From, Leaves: []retention.LeafRange{leaves}}
		m.add(d.Records(now)[0], sealed)
	}
	plan := func(m *memLog, from, to audit.Plan) {
		m.add(retention.PlanChangeRecord(m.tenant, from, to, now.Add(-time.Hour)), true)
	}
	for _, c := range []struct {
		name    string
		build   func(m *memLog)
		events  int64
		expired int64
		want    []string // the findings, in order, each by its start
	}{
		{"intact", func(m *memLog) {
			for _, e := range evs {
				m.add(e, true)
			}
		}, 40, 0, nil},
		{"a row stored twice", func(m *memLog) {
			for _, e := range evs {
				m.add(e, true)
			}
			m.events = append(m.events, m.events[3])
		}, 40, 0, []string{"repeated #3 " + evs[3].ID + " stored twice"}},
		{"a leaf repeated", func(m *memLog) {
			for _, e := range evs {
				m.add(e, true)
			}
			m.leaves = append(m.leaves, vlog.Leaf{Index: 40, EventID: evs[5].ID, Hash: m.leaves[5].Hash})
		}, 40, 0, []string{"repeated #40 " + evs[5].ID + " already leaf #5"}},
		{"missing, named from the leaves read again", func(m *memLog) {
			for _, e := range evs {
				m.add(e, true)
			}
			m.events = append(m.events[:7], m.events[8:]...)
		}, 39, 0, []string{"missing  #7 " + evs[7].ID}},
		{"altered", func(m *memLog) {
			for _, e := range evs {
				m.add(e, true)
			}
			m.events[9].Reason = "edited"
		}, 40, 0, []string{"altered  #9 " + evs[9].ID}},
		{"deleted by retention, as a sealed record says", func(m *memLog) {
			for _, e := range evs {
				m.add(e, true)
			}
			purged(m, retention.LeafRange{From: 0, To: 10}, true)
			m.events = m.events[10:]
		}, 31, 10, nil},
		{"deleted under the plan the log records", func(m *memLog) {
			plan(m, audit.PlanEnterprise, audit.PlanStarter)
			for _, e := range evs {
				m.add(e, true)
			}
			purged(m, retention.LeafRange{From: 1, To: 11}, true)
			m.events = append(m.events[:1], m.events[11:]...)
		}, 32, 10, nil},
		{"deleted under a plan the log does not record", func(m *memLog) {
			plan(m, audit.PlanStarter, audit.PlanEnterprise)
			for _, e := range evs {
				m.add(e, true)
			}
			purged(m, retention.LeafRange{From: 1, To: 11}, true)
			m.events = append(m.events[:1], m.events[11:]...)
		}, 32, 10, []string{"unauthorized #41"}},
		{"a record in no leaf excuses nothing", func(m *memLog) {
			for _, e := range evs {
				m.add(e, true)
			}
			purged(m, retention.LeafRange{From: 0, To: 2}, false)
			m.events = m.events[2:]
		}, 38, 0, []string{"missing  #0", "missing  #1", "unsealed"}},
		{"inserted behind the service", func(m *memLog) {
			for _, e := range evs[:39] {
				m.add(e, true)
			}
			m.add(evs[39], false)
		}, 39, 0, []string{"unsealed " + evs[39].ID}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, keys := newMemLog(t)
			c.build(m)
			m.sign(t)
			rep, err := seal.Check(context.Background(), m, m.tenant, keys, 0)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Events != c.events || rep.Expired != c.expired || len(rep.Findings) != len(c.want) {
				t.Fatalf("events %d (want %d), expired %d (want %d), findings:\n%s\nwant %q", rep.Events, c.events, rep.Expired, c.expired, kinds(rep), c.want)
			}
			for _, w := range c.want {
				if !strings.Contains(kinds(rep), w) {
					t.Fatalf("findings:\n%s\nwant one starting %q", kinds(rep), w)
				}
			}
		})
	}
}

// TestCheckWaitsForTheNextCheckpoint: an event stored after the
// checkpoint was signed is judged by a later checkpoint that seals it,
// within the grace; with no grace, it is named unsealed.
func TestCheckWaitsForTheNextCheckpoint(t *testing.T) {
	evs := events(20)
	for _, grace := range []time.Duration{0, 10 * time.Second} {
		m, keys := newMemLog(t)
		for _, e := range evs[:19] {
			m.add(e, true)
		}
		m.sign(t)
		m.add(evs[19], false)
		m.onCheck = func(m *memLog) {
			if len(m.leaves) == 19 {
				m.leaves = append(m.leaves, vlog.Leaf{Index: 19, EventID: evs[19].ID, Hash: vlog.LeafHash(m.events[19])})
				m.sign(t)
			}
		}
		rep, err := seal.Check(context.Background(), m, m.tenant, keys, grace)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case grace == 0 && (len(rep.Findings) != 1 || rep.Findings[0].Kind != "unsealed" || rep.Events != 19):
			t.Fatalf("no grace: %d events, findings:\n%s\nwant the last one unsealed", rep.Events, kinds(rep))
		case grace > 0 && (len(rep.Findings) != 0 || rep.Events != 20 || rep.Checkpoint.Size != 20 || rep.First.Size != 19):
			t.Fatalf("grace: %d events, checkpoints %d then %d, findings:\n%s\nwant 20 events, 19 then 20, none", rep.Events, rep.First.Size, rep.Checkpoint.Size, kinds(rep))
		}
	}
}
