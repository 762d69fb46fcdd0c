package elasticsearch_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/vlog"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/ilm"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/internal/testkit/storetest"
	"github.com/auditlog/auditlog/seal"
)

// sealedStore is a store (its writes queued for sealing) holding n
// generated events of one tenant, all sealed: the store, the events and
// the checkpoint verifier.
func sealedStore(t *testing.T, seed uint64, n int) (*elasticsearch.Store, []audit.Event, vlog.Keys) {
	t.Helper()
	ctx := context.Background()
	s, _ := newStore(t, elasticsearch.StoreConfig{Accept: accepttest.Acceptor, Log: true})
	g := gen.New(gen.Config{Seed: seed, Tenants: 1, WithIDs: true}, n)
	var events []audit.Event
	for i := 0; i < n; i++ {
		events = append(events, g.Next())
	}
	if _, err := s.WriteEvents(ctx, events); err != nil {
		t.Fatal(err)
	}
	sealer, v := storetest.NewSealer(t, s, 0)
	storetest.SealAll(t, sealer)
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
		return err == nil && tlog.CheckRecord(p.Proof, p.Size, p.Root, p.Leaf.Index, vlog.LeafHash(stored)) == nil
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
	behind, err := elasticsearch.NewStore(c, s.Capabilities(), elasticsearch.StoreConfig{Accept: accepttest.Acceptor})
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
	storetest.WantFindings(t, rep, map[string]string{events[3].ID: "altered", events[5].ID: "altered", events[7].ID: "missing", inserted.ID: "unsealed"},
		s, s, tenant)
}

// TestRetentionIsRecordedInTheLogOnElasticsearch: the lifecycle pass that
// deletes a Starter tenant's expired backing index first writes a
// retention record naming the leaves of its events; once sealed, log
// verify counts them as deleted by retention, with no finding, and the
// events that remain still prove their inclusion.
func TestRetentionIsRecordedInTheLogOnElasticsearch(t *testing.T) {
	ctx := context.Background()
	short := map[audit.Plan]ilm.Policy{}
	for _, plan := range audit.Plans {
		p, _ := ilm.For(plan)
		p.RolloverMaxAge = "0ms"
		short[plan] = p
	}
	s, _ := newStore(t, elasticsearch.StoreConfig{Accept: accepttest.Acceptor, Log: true, Policies: short, TenantCacheTTL: time.Millisecond})
	now := time.Now()
	g := gen.New(gen.Config{Seed: 19, Tenants: 1, WithIDs: true}, 40)
	tenant := &g.Tenants()[0]
	changePlan(t, s, tenant.ID, audit.PlanStarter)
	write := func(age time.Duration, n int) []audit.Event {
		evs := make([]audit.Event, n)
		for i := range evs {
			evs[i] = g.NextFor(tenant, now.Add(-age).Add(time.Duration(i)*time.Second))
		}
		if _, err := s.WriteEvents(ctx, evs); err != nil {
			t.Fatal(err)
		}
		return evs
	}
	sealer, v := storetest.NewSealer(t, s, 0)
	sealAll := func() { storetest.SealAll(t, sealer) }
	write(40*24*time.Hour, 20)
	sealAll()
	rep, err := s.RunLifecycle(ctx)
	if err != nil || len(rep.Deleted) == 0 {
		t.Fatalf("lifecycle: %+v %v", rep, err)
	}
	recent := write(2*24*time.Hour, 10)
	sealAll()
	refresh(t, s, s.AllStreamsPattern())
	res, err := s.SearchEvents(ctx, audit.Query{Filter: audit.Filter{TenantID: tenant.ID, ResourceTypes: []string{audit.ResourceLogRetention}}, Sort: audit.DefaultSort, PageSize: 10, Page: 1})
	if err != nil || len(res.Events) != 1 || res.Events[0].Actor != audit.SystemActor {
		t.Fatalf("retention records: %+v %v", res.Events, err)
	}
	vr, err := seal.Verify(ctx, s, s, tenant.ID, v)
	if err != nil || len(vr.Findings) != 0 || vr.Expired != 20 || vr.Events != 12 { // 10 recent, the plan change and the retention records
		t.Fatalf("verify after retention: %+v %v", vr, err)
	}
	p, err := seal.ProveInclusion(ctx, s, tenant.ID, recent[3].ID, 0)
	stored, _ := s.GetEvent(ctx, tenant.ID, recent[3].ID)
	if err != nil || tlog.CheckRecord(p.Proof, p.Size, p.Root, p.Leaf.Index, vlog.LeafHash(stored)) != nil {
		t.Fatalf("a remaining event's proof: %v", err)
	}
}

// TestVerifyNamesMalformedDocumentsOnElasticsearch: documents edited into
// something that is no event (a number where the e-mail belongs, a
// change that is no {from, to}, the id of another event) are each named
// malformed at their leaf, and every other event is still checked.
func TestVerifyNamesMalformedDocumentsOnElasticsearch(t *testing.T) {
	ctx := context.Background()
	s, events, v := sealedStore(t, 15, 30)
	tenant := events[0].TenantID
	editDocs(t, s, events, map[int]map[string]any{
		2: {"actor": map[string]any{"email": 5}},
		4: {"diff": map[string]any{"greeting": 5}},
		6: {"id": events[7].ID},
	})
	rep, err := seal.Verify(ctx, s, s, tenant, v)
	if err != nil {
		t.Fatalf("the verifier stopped: %v", err)
	}
	storetest.WantFindings(t, rep, map[string]string{events[2].ID: "malformed", events[4].ID: "malformed", events[6].ID: "malformed"}, s, s, tenant)
	if rep.Events != 30-3 {
		t.Fatalf("%d events checked, want the other 27", rep.Events)
	}
}

// TestVerifyNamesMisindexedDocumentsOnElasticsearch: the fields a
// document holds beside the event for search (text, changedFields,
// reasonWords), edited or removed with the event untouched, hide it from
// free text while its proof holds: log verify names each such document
// misindexed. Old members planted beside them (values, reasonText) are
// not what a document of this version is found by, and not named.
func TestVerifyNamesMisindexedDocumentsOnElasticsearch(t *testing.T) {
	ctx := context.Background()
	s, events, v := sealedStore(t, 16, 30)
	tenant := events[0].TenantID
	editDocs(t, s, events, map[int]map[string]any{
		3: {"text": []string{"planted"}, "changedFields": []string{"planted"}},
		5: {"reasonWords": "nothing to see"},
		7: {"text": nil},
		9: {"values": []string{"planted"}, "reasonText": "nothing to see"},
	})
	rep, err := seal.Verify(ctx, s, s, tenant, v)
	if err != nil {
		t.Fatal(err)
	}
	storetest.WantFindings(t, rep, map[string]string{events[3].ID: "misindexed", events[5].ID: "misindexed", events[7].ID: "misindexed"}, s, s, tenant)
	if rep.Events != 30 {
		t.Fatalf("%d events checked, want 30", rep.Events)
	}
}

// editDocs updates, behind the service, the document of events[i] with
// each partial document of edits, in its backing index.
func editDocs(t *testing.T, s *elasticsearch.Store, events []audit.Event, edits map[int]map[string]any) {
	t.Helper()
	for i, doc := range edits {
		path := "/" + backingIndex(t, s, events[i]) + "/_update/" + events[i].ID + "?refresh=true"
		if err := s.Client().DoJSON(context.Background(), http.MethodPost, path, map[string]any{"doc": doc}, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLogFootprintMeasuresTheLiveLog: rounds that widen a tenant's edge
// tile and id bundle leave their superseded versions soft-deleted in the
// log index; LogFootprint (the sizing benchmark's measure) waits until
// Elasticsearch lets them go and merges them away, so the bytes it
// reports are the live log's.
func TestLogFootprintMeasuresTheLiveLog(t *testing.T) {
	ctx := context.Background()
	s := supersededLog(t)
	tree, events, err := s.LogFootprint(ctx)
	if err != nil || tree <= 0 || events <= 0 {
		t.Fatalf("footprint: tree %d, events %d, %v", tree, events, err)
	}
	if d := deletedDocs(t, s, s.TlogIndex()); d != 0 {
		t.Fatalf("%d superseded documents still counted in the log index's footprint", d)
	}
}

// TestLifecyclePassesReclaimTheLogsSupersededDocuments (issue 58): the
// edge documents each sealing round rewrites leave superseded versions
// in the log index, and sealed tickets deleted ones in the sealing queue;
// lifecycle passes merge them away (a pass each few seconds here, as the
// hourly pass does in service: a version is reclaimable once the shard's
// retention lease passes it). Bootstrap puts the merge setting that lets
// a merge take every deleted document (not only a tenth of a segment's)
// on indices made before it.
func TestLifecyclePassesReclaimTheLogsSupersededDocuments(t *testing.T) {
	ctx := context.Background()
	s := supersededLog(t)
	for deadline := time.Now().Add(90 * time.Second); ; {
		if _, err := s.RunLifecycle(ctx); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Second)
		refresh(t, s, s.TlogIndex()+","+s.SealQueueIndex())
		log, queue := deletedDocs(t, s, s.TlogIndex()), deletedDocs(t, s, s.SealQueueIndex())
		if log == 0 && queue == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after lifecycle passes for 90 s the log index holds %d deleted documents and the sealing queue %d", log, queue)
		}
	}
	const setting = "index.merge.policy.expunge_deletes_allowed"
	if err := s.Client().DoJSON(ctx, http.MethodPut, "/"+s.TlogIndex()+"/_settings", map[string]any{setting: 10}, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Bootstrap(ctx); err != nil {
		t.Fatal(err)
	}
	for _, index := range []string{s.TlogIndex(), s.SealQueueIndex()} {
		var out map[string]struct {
			Settings map[string]any `json:"settings"`
		}
		if err := s.Client().DoJSON(ctx, http.MethodGet, "/"+index+"/_settings?flat_settings=true", nil, &out); err != nil {
			t.Fatal(err)
		}
		if v := out[index].Settings[setting]; v != "0" && v != "0.0" {
			t.Errorf("%s: %s is %v after Bootstrap, want 0", index, setting, v)
		}
	}
}

// supersededLog is a store whose log index holds superseded versions of
// its edge documents: three sealing rounds on one tenant's edge.
func supersededLog(t *testing.T) *elasticsearch.Store {
	t.Helper()
	ctx := context.Background()
	s, _ := newStore(t, elasticsearch.StoreConfig{Accept: accepttest.Acceptor, Log: true})
	g := gen.New(gen.Config{Seed: 21, Tenants: 1, WithIDs: true}, 300)
	sealer, _ := storetest.NewSealer(t, s, 0)
	for round := 0; round < 3; round++ {
		var events []audit.Event
		for range 100 {
			events = append(events, g.Next())
		}
		if _, err := s.WriteEvents(ctx, events); err != nil {
			t.Fatal(err)
		}
		storetest.SealAll(t, sealer)
	}
	refresh(t, s, s.TlogIndex())
	if d := deletedDocs(t, s, s.TlogIndex()); d == 0 {
		t.Fatal("three rounds on one edge left no superseded document: the test no longer shows what it should")
	}
	return s
}

// deletedDocs is the number of deleted documents index's primaries hold.
func deletedDocs(t *testing.T, s *elasticsearch.Store, index string) int64 {
	t.Helper()
	var st struct {
		All struct {
			Primaries struct{ Docs struct{ Deleted int64 } }
		} `json:"_all"`
	}
	if err := s.Client().DoJSON(context.Background(), http.MethodGet, "/"+index+"/_stats/docs", nil, &st); err != nil {
		t.Fatal(err)
	}
	return st.All.Primaries.Docs.Deleted
}

// TestARoundRereadsAStateChangedSinceItsCommit: the sealer keeps the
// state it committed and reads only the stored revision while it is
// unchanged; a state document edited behind it (or committed by another
// sealer) is read in full, never taken from what it committed.
func TestARoundRereadsAStateChangedSinceItsCommit(t *testing.T) {
	ctx := context.Background()
	s, events, _ := sealedStore(t, 21, 30)
	tenant := events[0].TenantID
	ids, err := elasticsearch.RoundState(ctx, s, tenant)
	if err != nil || len(ids) != len(events) {
		t.Fatalf("the committed round's leaves: %d, %v; want %d", len(ids), err, len(events))
	}
	var doc struct {
		Source map[string]any `json:"_source"`
	}
	path := elasticsearch.StatePath(s, tenant)
	if err := s.Client().DoJSON(ctx, http.MethodGet, path, nil, &doc); err != nil {
		t.Fatal(err)
	}
	leaves := doc.Source["leaves"].([]any)
	leaves[0].(map[string]any)["id"] = "edited-behind-the-sealer"
	if err := s.Client().DoJSON(ctx, http.MethodPut, path, doc.Source, nil); err != nil {
		t.Fatal(err)
	}
	ids, err = elasticsearch.RoundState(ctx, s, tenant)
	if err != nil || len(ids) == 0 || ids[0] != "edited-behind-the-sealer" {
		t.Fatalf("after an edit the round read leaves %v (%v): the state it committed, not the stored one", ids[:min(len(ids), 2)], err)
	}
}

// TestLogStateReadsAStateChangedSinceItWasKept: LogState answers from
// the state this process committed, or last read, only while the stored
// document is at that revision. Each edit behind it (here the checkpoint's
// text, twice: past the committed state, then past the one read) is what
// the next LogState answers.
func TestLogStateReadsAStateChangedSinceItWasKept(t *testing.T) {
	ctx := context.Background()
	s, events, _ := sealedStore(t, 22, 30)
	tenant := events[0].TenantID
	path := elasticsearch.StatePath(s, tenant)
	for _, text := range []string{"edited once\n", "edited twice\n"} {
		if st, err := s.LogState(ctx, tenant); err != nil || st.Size != int64(len(events)) {
			t.Fatalf("the log state: %+v, %v", st, err)
		}
		var doc struct {
			Source map[string]any `json:"_source"`
		}
		if err := s.Client().DoJSON(ctx, http.MethodGet, path, nil, &doc); err != nil {
			t.Fatal(err)
		}
		doc.Source["checkpoint"] = text
		if err := s.Client().DoJSON(ctx, http.MethodPut, path, doc.Source, nil); err != nil {
			t.Fatal(err)
		}
		if st, err := s.LogState(ctx, tenant); err != nil || st.Checkpoint != text {
			t.Fatalf("after an edit LogState answered the checkpoint %q (%v), want the stored %q", st.Checkpoint, err, text)
		}
	}
}

// TestATicketThatDoesNotReadStopsNothingBehindIt: tickets written
// straight into the sealing queue that no writer of the service writes
// (refs that are no base64, a count its refs do not make, a kind that is
// no string) are each named unaccepted by the sealer, after the ticket,
// while every event the service wrote is sealed; the queue ends empty.
func TestATicketThatDoesNotReadStopsNothingBehindIt(t *testing.T) {
	ctx := context.Background()
	s, _ := newStore(t, elasticsearch.StoreConfig{Accept: accepttest.Acceptor, Log: true})
	g := gen.New(gen.Config{Seed: 33, Tenants: 1, WithIDs: true}, 20)
	var events []audit.Event
	for range 20 {
		events = append(events, g.Next())
	}
	forged := []string{`{"kind":"ticket","at":0,"n":1,"refs":"!!not base64"}`, `{"kind":"ticket","at":1,"n":3,"refs":"AQA="}`, `{"kind":5,"at":2,"n":1,"refs":[]}`}
	for _, doc := range forged {
		if err := s.Client().DoJSON(ctx, http.MethodPost, "/"+s.SealQueueIndex()+"/_doc", json.RawMessage(doc), nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.WriteEvents(ctx, events); err != nil {
		t.Fatal(err)
	}
	sealer, _ := storetest.NewSealer(t, s, 0)
	storetest.SealAll(t, sealer)
	if st, err := s.LogState(ctx, events[0].TenantID); err != nil || st.Size != int64(len(events)) {
		t.Fatalf("the tenant's log holds %d leaves (%v), want %d", st.Size, err, len(events))
	}
	n, named := sealer.Unaccepted()
	if n != int64(len(forged)) {
		t.Fatalf("the sealer named %d unaccepted (%+v), want the %d forged tickets", n, named, len(forged))
	}
	for _, u := range named {
		if !strings.HasPrefix(u.EventID, "sealing ticket ") || !strings.Contains(u.Reason, "ticket does not read") {
			t.Errorf("named %+v, want a sealing ticket that does not read", u)
		}
	}
	refresh(t, s, s.SealQueueIndex())
	var count struct {
		Count int `json:"count"`
	}
	if err := s.Client().DoJSON(ctx, http.MethodGet, "/"+s.SealQueueIndex()+"/_count", nil, &count); err != nil || count.Count != 0 {
		t.Fatalf("%d tickets left in the queue (%v)", count.Count, err)
	}
}
