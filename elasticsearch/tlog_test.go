package elasticsearch_test

import (
	"context"
	"crypto/ed25519"
	"net/http"
	"testing"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/seal"
)

// sealedStore is a store (its writes queued for sealing) holding n
// generated events of one tenant, all sealed: the store, the events and
// the checkpoint verifier.
func sealedStore(t *testing.T, seed uint64, n int) (*elasticsearch.Store, []audit.Event, note.Verifier) {
	t.Helper()
	ctx := context.Background()
	s, _ := newStore(t, elasticsearch.StoreConfig{Log: true})
	g := gen.New(gen.Config{Seed: seed, Tenants: 1, WithIDs: true}, n)
	var events []audit.Event
	for i := 0; i < n; i++ {
		events = append(events, g.Next())
	}
	if _, err := s.WriteEvents(ctx, events); err != nil {
		t.Fatal(err)
	}
	_, priv, _ := ed25519.GenerateKey(nil)
	signer, vkey, _ := seal.NewSigner("auditlog.test", priv)
	sealer := seal.New(seal.Config{Origin: "auditlog.test"}, seal.Deps{Store: s, Signer: signer})
	for {
		k, err := sealer.Round(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if k == 0 {
			break
		}
	}
	v, _ := note.NewVerifier(vkey)
	refresh(t, s, s.AllStreamsPattern())
	return s, events, v
}

// backingIndex is the backing index that holds the tenant's event id.
func backingIndex(t *testing.T, s *elasticsearch.Store, e audit.Event) string {
	t.Helper()
	var out struct {
		Hits struct {
			Hits []struct {
				Index string `json:"_index"`
			} `json:"hits"`
		} `json:"hits"`
	}
	body := map[string]any{"query": map[string]any{"term": map[string]any{"id": e.ID}}}
	if err := s.Client().DoJSON(context.Background(), http.MethodPost, "/"+s.TenantPattern(e.TenantID)+"/_search", body, &out); err != nil || len(out.Hits.Hits) != 1 {
		t.Fatalf("finding %s: %v %+v", e.ID, err, out)
	}
	return out.Hits.Hits[0].Index
}

// TestVerifyNamesWhatChangedBehindTheServiceOnElasticsearch: an event
// edited with _update straight in its backing index, one back-dated, one
// deleted, and one written by a process that queues nothing for sealing
// (inserted behind the sealer) are each named by seal.Verify (auditlog
// log verify), and the edited and deleted ones no longer prove their
// inclusion; an intact log has no finding, another key is refused.
func TestVerifyNamesWhatChangedBehindTheServiceOnElasticsearch(t *testing.T) {
	ctx := context.Background()
	s, events, v := sealedStore(t, 13, 40)
	tenant := events[0].TenantID
	rep, err := seal.Verify(ctx, s, s, tenant, v)
	if err != nil || len(rep.Findings) != 0 || rep.Events != 40 || rep.Checkpoint.Size != 40 {
		t.Fatalf("intact: %+v %v", rep, err)
	}
	proves := func(e audit.Event) bool {
		p, err := seal.ProveInclusion(ctx, s, tenant, e.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		stored, err := s.GetEvent(ctx, tenant, e.ID)
		return err == nil && tlog.CheckRecord(p.Proof, p.Size, p.Root, p.Leaf.Index, audit.LeafHash(stored)) == nil
	}
	if !proves(events[3]) || !proves(events[7]) {
		t.Fatal("intact events do not prove")
	}
	c := s.Client()
	for _, edit := range []struct {
		method, path string
		body         any
	}{
		{http.MethodPost, "/" + backingIndex(t, s, events[3]) + "/_update/" + events[3].ID, map[string]any{"doc": map[string]any{"actor": map[string]any{"email": "x@x.example"}}}},
		{http.MethodPost, "/" + backingIndex(t, s, events[5]) + "/_update/" + events[5].ID, map[string]any{"doc": map[string]any{"@timestamp": "2020-01-01T00:00:00.000Z"}}},
		{http.MethodDelete, "/" + backingIndex(t, s, events[7]) + "/_doc/" + events[7].ID, nil},
	} {
		if err := c.DoJSON(ctx, edit.method, edit.path+"?refresh=true", edit.body, nil); err != nil {
			t.Fatalf("%s %s: %v", edit.method, edit.path, err)
		}
	}
	inserted := events[9]
	inserted.ID = "evt_audit_00000000-0000-7000-8000-000000000001"
	behind, err := elasticsearch.NewStore(c, s.Capabilities(), elasticsearch.StoreConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := behind.WriteEvents(ctx, []audit.Event{inserted}); err != nil {
		t.Fatal(err)
	}
	refresh(t, s, s.AllStreamsPattern())
	if proves(events[3]) || proves(events[7]) || !proves(events[0]) {
		t.Fatalf("after the edits: edited %v, deleted %v, untouched %v", proves(events[3]), proves(events[7]), proves(events[0]))
	}
	rep, err = seal.Verify(ctx, s, s, tenant, v)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range rep.Findings {
		got[f.EventID] = f.Kind
	}
	want := map[string]string{events[3].ID: "altered", events[5].ID: "altered", events[7].ID: "missing", inserted.ID: "unsealed"}
	if len(got) != len(want) {
		t.Fatalf("findings %v, want %v", rep.Findings, want)
	}
	for id, kind := range want {
		if got[id] != kind {
			t.Fatalf("%s: %q, want %q (all: %v)", id, got[id], kind, rep.Findings)
		}
	}
	_, other, _ := ed25519.GenerateKey(nil)
	_, otherKey, _ := seal.NewSigner("auditlog.test", other)
	ov, _ := note.NewVerifier(otherKey)
	if _, err := seal.Verify(ctx, s, s, tenant, ov); audit.ErrorCode(err) != audit.EUNAUTHORIZED {
		t.Fatalf("another key: %v", err)
	}
}
