package main

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"github.com/auditlog/auditlog/audit/blob"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/s3"
	"github.com/auditlog/auditlog/streaming"
	"github.com/auditlog/auditlog/streaming/s3stream"
	"github.com/auditlog/auditlog/streaming/webhook"
)

// benchReceiver is the tenants' webhook endpoint of the streaming
// benchmarks: it verifies nothing (the signature is the streamer's cost,
// not the receiver's), keeps when each event id first arrived, and says
// 503 while down.
type benchReceiver struct {
	down     atomic.Bool
	events   atomic.Int64
	mu       sync.Mutex
	arrivals map[string]time.Time
}

func (r *benchReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if r.down.Load() {
		_, _ = io.Copy(io.Discard, req.Body)
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	var b struct {
		Events []struct {
			Event struct {
				ID string `json:"id"`
			} `json:"event"`
		} `json:"events"`
	}
	if err := json.NewDecoder(req.Body).Decode(&b); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	now := time.Now()
	r.mu.Lock()
	for _, e := range b.Events {
		if _, ok := r.arrivals[e.Event.ID]; !ok && r.arrivals != nil {
			r.arrivals[e.Event.ID] = now
		}
	}
	r.mu.Unlock()
	r.events.Add(int64(len(b.Events)))
	w.WriteHeader(http.StatusNoContent)
}

// streamRig is a store of sealed events, a receiver, and the streamer
// of `auditlog stream` over them.
type streamRig struct {
	store    *elasticsearch.Store
	tenants  []gen.Tenant
	recv     *benchReceiver
	hook     *httptest.Server
	streamer *streaming.Streamer
	bucket   string
}

// newStreamRig builds a rig on a fresh store of tenants, the webhook on an in-process TLS server and S3
// on the test S3 server.
func newStreamRig(ctx context.Context, e *env, tenants []gen.Tenant) (*streamRig, error) {
	store, err := freshStoreWith(ctx, e, tenants, elasticsearch.StoreConfig{Accept: benchAccept, Log: true})
	if err != nil {
		return nil, err
	}
	_, priv, _ := ed25519.GenerateKey(nil)
	r := &streamRig{store: store, tenants: tenants, recv: &benchReceiver{}, bucket: uniq("bench-streams")}
	r.hook = httptest.NewTLSServer(r.recv)
	hook := webhook.NewClient(true, 30*time.Second)
	hook.HTTP.Transport.(*http.Transport).TLSClientConfig = r.hook.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	dests := map[string]streaming.Destination{webhook.Kind: hook}
	if ep := os.Getenv("AUDITLOG_TEST_S3_ENDPOINT"); ep != "" {
		b, err := s3.Open(ctx, s3.Config{Endpoint: ep, Bucket: r.bucket, AccessKey: os.Getenv("AUDITLOG_TEST_S3_ACCESS_KEY"),
			SecretKey: os.Getenv("AUDITLOG_TEST_S3_SECRET_KEY"), PathStyle: true, CreateBucket: true})
		if err != nil {
			return nil, err
		}
		dests[s3stream.Kind] = &s3stream.Destination{Bucket: func(context.Context, string) (blob.Store, error) { return b, nil }, Key: priv, Now: time.Now}
	}
	r.streamer = &streaming.Streamer{Streams: store, Log: store, Events: store, BatchSize: 500, Now: time.Now, MaskKey: []byte("the-benchmark-deployments-mask-k"),
		Dest: func(kind string) streaming.Destination { return dests[kind] }}
	return r, nil
}

func (r *streamRig) close() { r.hook.Close() }

// write stores events and returns when they are stored.
func (r *streamRig) write(ctx context.Context, events []audit.Event) error {
	for i := 0; i < len(events); i += 1000 {
		res, err := audit.WriteSettled(ctx, r.store, events[i:min(i+1000, len(events))], audit.Retrier{})
		if err != nil {
			return err
		}
		for _, x := range res {
			if x.Status != audit.WriteCreated && x.Status != audit.WriteDuplicate {
				return fmt.Errorf("writing: %+v", x)
			}
		}
	}
	return nil
}

// streams creates a stream of kind per tenant, from leaf from of each
// tenant's log (0: its start; -1: its end now).
func (r *streamRig) streams(ctx context.Context, kind string, fromEnd bool) ([]*stream.Stream, error) {
	var out []*stream.Stream
	for _, t := range r.tenants {
		d := stream.NewDestination(&webhook.Config{URL: r.hook.URL + "/in", Secret: "bench-secret-bench-secret-bench-secret"})
		if kind == s3stream.Kind {
			d = stream.NewDestination(&s3stream.Config{Bucket: r.bucket, Prefix: "bench"})
		}
		st, err := stream.NewStream(t.ID, stream.Config{Name: "bench", Destination: d}, "", stream.Rules{AllowPrivate: true},
			func() string { return "" }, time.Now())
		if err != nil {
			return nil, err
		}
		if fromEnd {
			ls, err := r.store.LogState(ctx, t.ID)
			if err != nil {
				return nil, err
			}
			st.Cursor = uint64(ls.Size)
		}
		if err := r.store.PutStream(ctx, &st); err != nil {
			return nil, err
		}
		out = append(out, &st)
	}
	return out, nil
}

// runner is a replica of `auditlog stream` as it runs by default.
func (r *streamRig) runner() *streaming.Runner {
	return &streaming.Runner{Streamer: r.streamer, Owner: uniq("bench"), Lease: 30 * time.Second,
		S3Every: time.Millisecond, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

// caughtUp reports whether every stream's cursor is at its log's size.
func (r *streamRig) caughtUp(ctx context.Context, streams []*stream.Stream) (bool, error) {
	for _, s := range streams {
		st, err := r.store.Stream(ctx, s.TenantID, s.ID)
		if err != nil {
			return false, err
		}
		ls, err := r.store.LogState(ctx, s.TenantID)
		if err != nil {
			return false, err
		}
		if st.Cursor < uint64(ls.Size) {
			return false, nil
		}
	}
	return true, nil
}

// drain runs a replica as `auditlog stream` runs one (Runner.Run: a pass
// every second, and one as soon as a turn ends) until every stream is
// caught up, and returns how long that took (read every 100 ms).
func (r *streamRig) drain(ctx context.Context, streams []*stream.Stream) (time.Duration, error) {
	run := r.runner()
	start := time.Now()
	rctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		run.Run(rctx, time.Second)
	}()
	defer func() {
		stop()
		<-done
	}()
	for deadline := start.Add(20 * time.Minute); time.Now().Before(deadline); {
		caught, err := r.caughtUp(ctx, streams)
		if err != nil || caught {
			return time.Since(start), err
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return 0, fmt.Errorf("the streams did not catch up in 20 minutes")
}
