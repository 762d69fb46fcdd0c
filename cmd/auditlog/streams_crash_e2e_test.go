package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"encoding/pem"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
	"github.com/auditlog/auditlog/kafka"
	"github.com/auditlog/auditlog/streaming"
	"github.com/auditlog/auditlog/streaming/webhook"
)

// chaosSIEM is the tenants' webhook receiver at its worst: down for a
// while, 429 with Retry-After, 500 at random. It keeps, per tenant, the
// event of each leaf index it accepted, the repeats, and whether each
// accepted batch started where the ones before reached (no gap).
type chaosSIEM struct {
	mu       sync.Mutex
	secret   []byte
	down     bool
	r        *rand.Rand
	leaves   map[string]map[uint64]string
	reach    map[string]uint64
	repeats  int
	answered map[int]int
	t        *testing.T
	// hold, when set, makes the next accepted batch's answer wait until
	// its client goes away, after its id is sent on held: the test kills
	// the streamer then, with that batch kept and not acknowledged.
	hold atomic.Bool
	held chan struct{}
}

func (s *chaosSIEM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		// The request ended before its body did: the streamer was killed
		// while sending it. Nothing was delivered (a receiver reads a
		// body to its declared length before taking it), and the streamer
		// sends the batch again from its stored cursor.
		return
	}
	status := s.take(w, r, body)
	if status == http.StatusNoContent && s.hold.CompareAndSwap(true, false) {
		s.held <- struct{}{}
		select { // the streamer is killed with this batch kept and not acknowledged
		case <-r.Context().Done():
			return
		case <-time.After(time.Minute):
		}
	} else if status == http.StatusNoContent {
		// A SIEM's latency: the batch is kept, its answer not sent yet; a
		// streamer killed now sends the batch again.
		time.Sleep(100 * time.Millisecond)
	}
	w.WriteHeader(status)
}

// take answers a delivery by the chaos's rules and keeps an accepted one.
func (s *chaosSIEM) take(w http.ResponseWriter, r *http.Request, body []byte) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	status := http.StatusNoContent
	switch x := s.r.IntN(100); {
	case s.down:
		status = http.StatusServiceUnavailable
	case x < 5:
		w.Header().Set("Retry-After", "1")
		status = http.StatusTooManyRequests
	case x < 15:
		status = http.StatusInternalServerError
	}
	s.answered[status]++
	if status != http.StatusNoContent {
		return status
	}
	if err := webhook.Verify(s.secret, r.Header.Get(webhook.TimestampHeader), r.Header.Get(webhook.SignatureHeader), body, time.Now(), webhook.DefaultWindow); err != nil {
		s.t.Errorf("a delivery that does not verify: %v", err)
	}
	var b streaming.Batch
	if err := json.Unmarshal(body, &b); err != nil {
		s.t.Errorf("a batch that does not decode: %v", err)
	}
	if b.Test {
		return status
	}
	if b.From > s.reach[b.TenantID] {
		s.t.Errorf("tenant %s: a batch from leaf %d, the ones before reached %d: a gap", b.TenantID, b.From, s.reach[b.TenantID])
	}
	s.reach[b.TenantID] = max(s.reach[b.TenantID], b.To)
	got := s.leaves[b.TenantID]
	if got == nil {
		got = map[uint64]string{}
		s.leaves[b.TenantID] = got
	}
	prev := int64(-1)
	for _, e := range b.Events {
		var ev struct{ ID, TenantID string }
		_ = json.Unmarshal(e.Event, &ev)
		if ev.TenantID != b.TenantID || int64(e.LeafIndex) <= prev || e.LeafIndex < b.From || e.LeafIndex >= b.To {
			s.t.Errorf("tenant %s: event %s of %s at leaf %d in [%d, %d) after %d", b.TenantID, ev.ID, ev.TenantID, e.LeafIndex, b.From, b.To, prev)
		}
		prev = int64(e.LeafIndex)
		if had, ok := got[e.LeafIndex]; ok {
			s.repeats++
			if had != ev.ID {
				s.t.Errorf("tenant %s: leaf %d was %s, now %s", b.TenantID, e.LeafIndex, had, ev.ID)
			}
		}
		got[e.LeafIndex] = ev.ID
	}
	return status
}

// accepted is how many deliveries s has accepted.
func (s *chaosSIEM) accepted() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.answered[http.StatusNoContent]
}

// TestStreamsSurviveOutagesAndSIGKILL: 200,000 events (100,000 under the
// race detector) of 20 tenants go
// through Kafka into Elasticsearch, sealed by serve, and stream to each
// tenant's webhook from an `auditlog stream` process that is SIGKILLed
// five times, while the receiver is down for 60 s, answers 429 with
// Retry-After and 500 at random: every stored event of every tenant
// arrives at its leaf index, every repeat is a leaf seen before with the
// same event, no batch leaves a gap, and each stream's cursor ends at its
// log's size.
func TestStreamsSurviveOutagesAndSIGKILL(t *testing.T) {
	// It runs beside the browser tests (make test runs both without the
	// race detector, where they spend their time waiting).
	t.Parallel()
	// 60,000 events over 20 streams of batches of 500: the receiver's
	// outage and the first two kills fall in the first 65 s, and the
	// catch-up after it still holds well over the 45 batches the last
	// three kills need (200,000 took 12 minutes here and proved no more).
	const tenants, n = 20, 60000
	brokers, esURL := testenv.KafkaBrokers(t), testenv.ElasticsearchURL(t)
	prefix, topic := testenv.Name("auditlog-streams"), testenv.Name("audit-events")
	if err := kafka.EnsureTopics(context.Background(), brokers, kafka.TopicSpec{Name: topic, Partitions: 4}); err != nil {
		t.Fatal(err)
	}
	rc := &chaosSIEM{secret: []byte(strings.Repeat("c", 32)), r: rand.New(rand.NewPCG(5, 6)), leaves: map[string]map[uint64]string{},
		reach: map[string]uint64{}, answered: map[int]int{}, t: t, held: make(chan struct{}, 1)}
	hook := httptest.NewTLSServer(rc)
	defer hook.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hook.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	key := testKeyFile(t)
	es := map[string]string{"AUDITLOG_ES_URL": esURL, "AUDITLOG_ES_INDEX_PREFIX": prefix, "AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_LOG_LEVEL": "warn",
		"AUDITLOG_ACCEPT_KEY": testAcceptKey(t)}
	serve := startMain(t, "serve", with(map[string]string{"AUDITLOG_STORE": "elasticsearch", "AUDITLOG_DATA_DIR": t.TempDir(), "AUDITLOG_JWT_SECRET": "s3cret",
		"AUDITLOG_PERIODIC_SIGNING_KEY": key, "AUDITLOG_LOG_SEAL_EVERY": "200ms", "AUDITLOG_RATE_LIMIT": "0", "AUDITLOG_STREAM_ALLOW_PRIVATE": "true",
		"AUDITLOG_PERIODIC_EXPORT": "false"}, es))
	startMain(t, "index", with(map[string]string{"AUDITLOG_KAFKA_BROKERS": strings.Join(brokers, ","), "AUDITLOG_KAFKA_TOPIC": topic,
		"AUDITLOG_KAFKA_GROUP": topic + "-group", "AUDITLOG_KAFKA_PARTITIONS": "4"}, es))
	c := client{t, "http://" + serve.Addr()}

	g := gen.New(gen.Config{Seed: 21, Tenants: tenants, Skew: 0.8, WithIDs: true}, n)
	toks := map[string]string{}
	streams := map[string]string{}
	for _, tn := range g.Tenants() {
		toks[tn.ID], _ = api.MintToken([]byte("s3cret"), audit.Principal{UserID: tn.ID, Email: "secops@x.example", Role: audit.RoleAdmin, TenantID: tn.ID}, 2*time.Hour, time.Now())
		cfg := []byte(`{"name":"SIEM","destination":{"kind":"webhook","url":"` + hook.URL + `/in","secret":"` + string(rc.secret) + `"}}`)
		code, body := c.do("POST", "/api/streams", toks[tn.ID], cfg)
		for try := 0; code == http.StatusServiceUnavailable && try < 10; try++ { // a store still busy: a client tries again
			time.Sleep(time.Second)
			code, body = c.do("POST", "/api/streams", toks[tn.ID], cfg)
		}
		var v api.StreamView
		if err := json.Unmarshal(body, &v); code != 201 || err != nil {
			t.Fatalf("create the stream of %s: %d %s", tn.ID, code, body)
		}
		streams[tn.ID] = v.ID
	}
	msgs := make([]kafka.Message, n)
	for i := range msgs {
		e := g.Next()
		b, _ := json.Marshal(e)
		msgs[i] = kafka.Message{Key: []byte(e.TenantID), Value: b}
	}
	produced := make(chan struct{})
	go func() { defer close(produced); testenv.Produce(t, brokers, topic, msgs) }()

	streamEnv := []string{"AUDITLOG_ES_URL=" + esURL, "AUDITLOG_ES_INDEX_PREFIX=" + prefix, "AUDITLOG_HTTP_ADDR=127.0.0.1:0", "AUDITLOG_LOG_LEVEL=warn",
		"AUDITLOG_STREAM_ALLOW_PRIVATE=true", "AUDITLOG_STREAM_CA_FILE=" + ca, "AUDITLOG_STREAM_EVERY=200ms", "AUDITLOG_STREAM_LEASE=3s",
		"AUDITLOG_STREAM_BATCH=500", "AUDITLOG_STREAM_TIMEOUT=10s", "AUDITLOG_DATA_DIR=" + t.TempDir(), "AUDITLOG_STREAM_MASK_KEY=" + testStreamMaskKey(t), "AUDITLOG_ACCEPT_KEY=" + es["AUDITLOG_ACCEPT_KEY"]}
	streamer := child(t, streamEnv, "stream")
	start := time.Now()
	go func() { // the receiver goes down for 60 s
		time.Sleep(5 * time.Second)
		rc.mu.Lock()
		rc.down = true
		rc.mu.Unlock()
		time.Sleep(60 * time.Second)
		rc.mu.Lock()
		rc.down = false
		rc.mu.Unlock()
	}()
	// Two kills while the receiver is down, three while the streams catch
	// up after it, each after 15 more batches went through, while the
	// receiver holds the answer to a batch it kept: a batch in flight,
	// which the streamer must send again.
	kill := func(i int) {
		if err := streamer.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = streamer.Wait()
		t.Logf("streamer SIGKILLed (%d) at %s, %d batches accepted", i, time.Since(start).Round(time.Second), rc.accepted())
		streamer = child(t, streamEnv, "stream")
	}
	for i, at := range []time.Duration{20 * time.Second, 40 * time.Second} {
		time.Sleep(time.Until(start.Add(at)))
		kill(i + 1)
	}
	time.Sleep(time.Until(start.Add(65 * time.Second)))
	for i := 3; i <= 5; i++ {
		from := rc.accepted()
		testenv.Eventually(t, 5*time.Minute, func() error {
			if n := rc.accepted(); n < from+15 {
				return fmt.Errorf("%d batches accepted since the last kill", n-from)
			}
			return nil
		})
		rc.hold.Store(true)
		select {
		case <-rc.held:
		case <-time.After(5 * time.Minute):
			t.Fatal("no batch accepted in 5 minutes")
		}
		kill(i)
	}
	<-produced
	client, err := elasticsearch.New(elasticsearch.Config{URLs: []string{esURL}, IndexPrefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	testenv.WaitCount(t, client, prefix+"-events-*", n+tenants, 5*time.Minute) // and each stream's record of its creation
	// Every stream catches up with its log, which holds every stored event.
	stored := testenv.Scan(t, client, prefix+"-events-*")
	perTenant := map[string]uint64{}
	for _, e := range stored {
		perTenant[e.TenantID]++
	}
	views := map[string]api.StreamView{}
	testenv.Eventually(t, 8*time.Minute, func() error {
		for tenant, id := range streams {
			var v api.StreamView
			code, body := c.do("GET", "/api/streams/"+id, toks[tenant], nil)
			if err := json.Unmarshal(body, &v); code != 200 || err != nil {
				return fmt.Errorf("%d %s", code, body)
			}
			if perTenant[tenant] != v.LogSize || v.Cursor != v.LogSize {
				return fmt.Errorf("tenant %s: %d events, log of %d leaves, cursor %d (%s %s)", tenant, perTenant[tenant], v.LogSize, v.Cursor, v.State, v.Reason)
			}
			views[tenant] = v
		}
		return nil
	})
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for tenant, v := range views {
		got := rc.leaves[tenant]
		if uint64(len(got)) != v.LogSize {
			t.Errorf("tenant %s: %d distinct leaves received, its log holds %d", tenant, len(got), v.LogSize)
		}
		for leaf, id := range got {
			if e, ok := stored[id]; !ok || e.TenantID != tenant || leaf >= v.LogSize {
				t.Errorf("tenant %s: leaf %d carried %s, which is not its event", tenant, leaf, id)
			}
		}
	}
	received := 0
	for _, l := range rc.leaves {
		received += len(l)
	}
	for id, e := range stored { // every stored event arrived
		if _, ok := views[e.TenantID]; ok && !containsValue(rc.leaves[e.TenantID], id) {
			t.Fatalf("event %s of %s was stored and never delivered", id, e.TenantID)
		}
	}
	t.Logf("%d events stored, %d leaves delivered, %d repeats detected by leaf index; answers %v; %s", len(stored), received, rc.repeats, rc.answered,
		time.Since(start).Round(time.Second))
	if rc.repeats == 0 {
		t.Error("no batch held at a kill was sent again")
	}
	_ = streamer.Process.Signal(syscall.SIGTERM)
}

func containsValue(m map[uint64]string, v string) bool {
	for _, x := range m {
		if x == v {
			return true
		}
	}
	return false
}
