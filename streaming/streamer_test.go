package streaming_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/internal/testkit/splunkhec"
	"github.com/auditlog/auditlog/internal/testkit/storetest"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
	"github.com/auditlog/auditlog/sqlite"
	"github.com/auditlog/auditlog/streaming"
	"github.com/auditlog/auditlog/streaming/splunk"
	"github.com/auditlog/auditlog/streaming/webhook"
)

// receiver is a tenant's webhook endpoint: it checks each request's
// signature and keeps the batches it accepted; answer, when set, chooses
// another status.
type receiver struct {
	mu      sync.Mutex
	secret  []byte
	batches []streaming.Batch
	answer  func(w http.ResponseWriter) bool
	t       *testing.T
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	if err := webhook.Verify(r.secret, req.Header.Get(webhook.TimestampHeader), req.Header.Get(webhook.SignatureHeader), body, time.Now(), webhook.DefaultWindow); err != nil {
		r.t.Errorf("a delivery that does not verify: %v", err)
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	if req.Header.Get("X-Tenant-Key") != "k-1" {
		r.t.Errorf("the stream's header is missing: %v", req.Header)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.answer != nil && r.answer(w) {
		return
	}
	var b streaming.Batch
	if err := json.Unmarshal(body, &b); err != nil {
		r.t.Errorf("a batch that does not decode: %v", err)
	}
	r.batches = append(r.batches, b)
	w.WriteHeader(http.StatusNoContent)
}

// setup is a sealed SQLite store holding two tenants' events, a stream of
// tenant A to a TLS webhook receiver, and its streamer.
func setup(t *testing.T) (*streaming.Streamer, *stream.Stream, *receiver, *storetest.Dataset) {
	store, d := sealedStore(t)
	rc := &receiver{secret: []byte(strings.Repeat("s", 32)), t: t}
	srv := httptest.NewTLSServer(rc)
	t.Cleanup(srv.Close)
	client := webhook.NewClient(true, 10*time.Second)
	client.HTTP.Transport.(*http.Transport).TLSClientConfig = srv.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	st := &stream.Stream{ID: "3f1d2c4b-5a69-4788-9a0b-1c2d3e4f5a6b", TenantID: d.A, Name: "SIEM", Format: stream.FormatEvent, Filter: "-action:access",
		Mask: map[string]string{"actor.ip": stream.MaskDrop, "actor.email": stream.MaskHash}, State: stream.Active, CreatedAt: time.Now(),
		Destination: stream.NewDestination(&webhook.Config{URL: srv.URL + "/audit", Secret: string(rc.secret), Headers: map[string]string{"X-Tenant-Key": "k-1"}})}
	return streamer(t, store, st, 100, client), st, rc, d
}

// streamer stores st, normalised, and returns the streamer of store that
// delivers it to dest, batch leaves at a time (st's kind only).
func streamer(t *testing.T, store *sqlite.Store, st *stream.Stream, batch int, dest streaming.Destination) *streaming.Streamer {
	t.Helper()
	if err := st.Normalize(stream.Rules{AllowPrivate: true}); err != nil {
		t.Fatal(err)
	}
	if err := store.PutStream(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	return &streaming.Streamer{Streams: store, Log: store, Events: store, BatchSize: batch, Now: time.Now, MaskKey: accepttest.MaskKey,
		Dest: func(kind string) streaming.Destination {
			if kind == st.Destination.Kind {
				return dest
			}
			return nil
		}}
}

// sealedStore is a SQLite store holding two tenants' events, sealed.
func sealedStore(t *testing.T) (*sqlite.Store, *storetest.Dataset) {
	store, err := sqlite.Open(context.Background(), sqlite.Config{Accept: accepttest.Acceptor, Path: filepath.Join(t.TempDir(), "audit.db"), DefaultPlan: audit.PlanEnterprise})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	d := storetest.NewDataset(1200)
	storetest.Write(t, store, d.All)
	sealer, _ := storetest.NewSealer(t, store, 0)
	storetest.SealAll(t, sealer)
	return store, d
}

// sealedES is an Elasticsearch store holding the same two tenants'
// events, sealed.
func sealedES(t *testing.T) (*elasticsearch.Store, *storetest.Dataset) {
	ctx := context.Background()
	c, err := elasticsearch.New(elasticsearch.Config{URLs: []string{testenv.ElasticsearchURL(t)}, IndexPrefix: testenv.Name("auditlog-stream")})
	if err != nil {
		t.Fatal(err)
	}
	caps, err := c.Detect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	store, err := elasticsearch.NewStore(c, caps, elasticsearch.StoreConfig{Accept: accepttest.Acceptor, Log: true, TenantCacheTTL: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Bootstrap(ctx); err != nil {
		t.Fatal(err)
	}
	d := storetest.NewDataset(1200)
	storetest.Write(t, store, d.All)
	sealer, _ := storetest.NewSealer(t, store, 0)
	storetest.SealAll(t, sealer)
	return store, d
}

// drain steps st until it is idle.
func drain(t *testing.T, s *streaming.Streamer, st *stream.Stream) {
	t.Helper()
	for i := 0; i < 1000; i++ {
		res, err := s.Step(context.Background(), st)
		if err != nil {
			t.Fatal(err)
		}
		if res.Outcome == streaming.Idle {
			return
		}
		if res.Outcome != streaming.Accepted {
			t.Fatalf("step %d: outcome %d (%s)", i, res.Outcome, st.Reason)
		}
	}
	t.Fatal("never idle")
}

// TestStreamDeliversTheTenantsLogInOrder: every event of tenant A the
// filter keeps arrives once, in log order, with its leaf index; the
// ranges join end to end up to the log's size; none of tenant B's; the
// masked fields are hashed or gone; the cursor is the log's size.
func TestStreamDeliversTheTenantsLogInOrder(t *testing.T) {
	s, st, rc, d := setup(t)
	drain(t, s, st)
	ls, err := s.Log.LogState(context.Background(), d.A)
	if err != nil {
		t.Fatal(err)
	}
	if st.Cursor != uint64(ls.Size) || st.State != stream.Active {
		t.Fatalf("cursor %d state %s, want %d active", st.Cursor, st.State, ls.Size)
	}
	var got []string
	next, last := uint64(0), int64(-1)
	for _, b := range rc.batches {
		if b.From != next || b.TenantID != d.A {
			t.Fatalf("a batch of [%d, %d) of %s after %d", b.From, b.To, b.TenantID, next)
		}
		next = b.To
		for _, e := range b.Events {
			if int64(e.LeafIndex) <= last {
				t.Fatalf("leaf %d after %d", e.LeafIndex, last)
			}
			last = int64(e.LeafIndex)
			var ev map[string]any
			_ = json.Unmarshal(e.Event, &ev)
			actor, _ := ev["actor"].(map[string]any)
			if _, has := actor["ip"]; has || !strings.HasPrefix(actor["email"].(string), "hmac-sha256:") {
				t.Fatalf("the masked fields: %v", actor)
			}
			got = append(got, ev["id"].(string))
		}
	}
	var want []string
	for _, e := range d.Events {
		if e.Action != "access" {
			want = append(want, e.ID)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if next != uint64(ls.Size) || !slices.Equal(got, want) {
		t.Fatalf("delivered %d events up to %d, want %d up to %d", len(got), next, len(want), ls.Size)
	}
}

// TestStreamRetriesPausesAndReplays: a 429 keeps the cursor and marks the
// stream failing with the destination's wait; the next accepted batch
// ends it; a 401 pauses the stream with the reason, and a paused stream
// sends nothing; a replay sends the events again from where it says.
func TestStreamRetriesPausesAndReplays(t *testing.T) {
	s, st, rc, _ := setup(t)
	ctx := context.Background()
	rc.answer = func(w http.ResponseWriter) bool {
		w.Header().Set("Retry-After", "3")
		w.WriteHeader(http.StatusTooManyRequests)
		return true
	}
	res, err := s.Step(ctx, st)
	if err != nil || res.Outcome != streaming.Retry || res.Wait != 3*time.Second || st.Cursor != 0 || st.State != stream.Failing || !strings.Contains(st.Reason, "429") {
		t.Fatalf("a 429: %+v %v, stream %s %q at %d", res, err, st.State, st.Reason, st.Cursor)
	}
	rc.answer = nil
	if res, err := s.Step(ctx, st); err != nil || res.Outcome != streaming.Accepted || st.State != stream.Active || st.Cursor == 0 {
		t.Fatalf("after the 429: %+v %v %s", res, err, st.State)
	}
	at := st.Cursor
	rc.answer = func(w http.ResponseWriter) bool { w.WriteHeader(http.StatusUnauthorized); return true }
	if res, err := s.Step(ctx, st); err != nil || res.Outcome != streaming.Refused || st.State != stream.Paused || !strings.Contains(st.Reason, "401") {
		t.Fatalf("a 401: %+v %v %s %q", res, err, st.State, st.Reason)
	}
	if res, err := s.Step(ctx, st); err != nil || res.Outcome != streaming.Idle || st.Cursor != at {
		t.Fatalf("a paused stream stepped: %+v %v", res, err)
	}
	stored, err := s.Streams.Stream(ctx, st.TenantID, st.ID)
	if err != nil || stored.State != stream.Paused || stored.Cursor != at {
		t.Fatalf("stored: %+v %v", stored, err)
	}
	rc.answer = nil
	if err := st.Resume(time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := st.Replay(0, time.Now()); err != nil {
		t.Fatal(err)
	}
	n := len(rc.batches)
	drain(t, s, st)
	if rc.batches[n].From != 0 {
		t.Fatalf("the replay started at %d", rc.batches[n].From)
	}
}

// TestStreamToSplunk: a stream to a Splunk HTTP Event Collector with
// indexer acknowledgment delivers every event of its tenant once, in log
// order, each with its leaf index as an indexed field, through a busy
// answer (retried, the cursor kept) on the way.
func TestStreamToSplunk(t *testing.T) {
	store, d := sealedStore(t)
	ctx := context.Background()
	hec := splunkhec.Start("12345678-9abc-def0-1234-56789abcdef0")
	t.Cleanup(hec.Close)
	hec.Ack, hec.AckAfter = true, 1
	client := splunk.NewClient(true, 10*time.Second)
	client.HTTP.Transport.(*http.Transport).TLSClientConfig = hec.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	client.AckPoll = 5 * time.Millisecond
	st := &stream.Stream{ID: "0b7e7c1e-2f3a-4b5c-8d9e-0f1a2b3c4d5e", TenantID: d.A, Name: "Splunk", State: stream.Active, CreatedAt: time.Now(),
		Destination: stream.NewDestination(&splunk.Config{URL: hec.URL, Token: hec.Token})}
	s := streamer(t, store, st, 250, client)
	hec.Fail(splunkhec.Busy("2"))
	if res, err := s.Step(ctx, st); err != nil || res.Outcome != streaming.Retry || res.Wait != 2*time.Second || st.Cursor != 0 {
		t.Fatalf("busy: %+v %v at %d", res, err, st.Cursor)
	}
	drain(t, s, st)
	got := hec.Indexed()
	if len(got) != len(d.Events) {
		t.Fatalf("indexed %d events, want %d", len(got), len(d.Events))
	}
	last := -1.0
	for _, e := range got {
		idx, _ := e.Fields["leaf_index"].(float64)
		if idx <= last || e.Fields["tenant_id"] != d.A {
			t.Fatalf("leaf %v after %v of tenant %v", idx, last, e.Fields["tenant_id"])
		}
		last = idx
	}
}

// TestStreamParksARejectedBatch: a batch the destination rejects (400) is
// parked and the newer events go on; once its retry is due it is sent
// again and accepted; in the end every event arrived, the rejected ones
// after the others, and the stream is active with nothing parked.
func TestStreamParksARejectedBatch(t *testing.T) {
	s, st, rc, d := setup(t)
	now := time.Now()
	s.Now = func() time.Time { return now }
	rejected := 0
	rc.answer = func(w http.ResponseWriter) bool {
		if rejected == 0 {
			rejected++
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte("event too large"))
			return true
		}
		return false
	}
	res, err := s.Step(context.Background(), st)
	if err != nil || res.Outcome != streaming.Rejected || len(st.Parked) != 1 || st.Parked[0].From != 0 || st.Cursor != st.Parked[0].To || st.State != stream.Failing {
		t.Fatalf("the rejection: %+v %v, stream %+v", res, err, st)
	}
	drain(t, s, st)
	if len(st.Parked) != 1 || st.State != stream.Failing {
		t.Fatalf("the parked range was retried before its time: %+v", st.Parked)
	}
	now = now.Add(time.Hour)
	res, err = s.Step(context.Background(), st)
	if err != nil || res.Outcome != streaming.Accepted || !res.Parked || len(st.Parked) != 0 || st.State != stream.Active {
		t.Fatalf("the retry: %+v %v, stream %+v", res, err, st)
	}
	last := rc.batches[len(rc.batches)-1]
	if last.From != 0 {
		t.Fatalf("the last batch covers [%d, %d), want the parked range", last.From, last.To)
	}
	n := 0
	for _, b := range rc.batches {
		n += len(b.Events)
	}
	want := 0
	for _, e := range d.Events {
		if e.Action != "access" {
			want++
		}
	}
	if n != want {
		t.Fatalf("%d events arrived, want %d", n, want)
	}
}
