package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/internal/testkit/storetest"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
	"github.com/auditlog/auditlog/kafka"
	"github.com/auditlog/auditlog/sqlite"
)

// TestServeKilledWhileSealing: serve is killed with SIGKILL while it
// seals the 30,000 events it seeded (after its first round, before its
// last), on each store; restarted, it seals the rest, and every stored
// event is exactly one leaf of its tenant's log: nothing left out by the
// crash, nothing sealed twice by the restart.
func TestServeKilledWhileSealing(t *testing.T) {
	for _, store := range []string{"sqlite", "elasticsearch"} {
		t.Run(store, func(t *testing.T) { serveKilledWhileSealing(t, store) })
	}
}

func serveKilledWhileSealing(t *testing.T, store string) {
	dir, addr := t.TempDir(), testenv.FreeAddr(t)
	vars := []string{"AUDITLOG_HTTP_ADDR=" + addr, "AUDITLOG_DATA_DIR=" + dir, "AUDITLOG_JWT_SECRET=s3cret", "AUDITLOG_SEED=30000",
		"AUDITLOG_LOG_SEAL_EVERY=100ms", "AUDITLOG_LOG_LEVEL=warn", "AUDITLOG_PERIODIC_EXPORT=false"}
	prefix := testenv.Name("auditlog-sealkill")
	if store == "elasticsearch" {
		vars = append(vars, "AUDITLOG_STORE=elasticsearch", "AUDITLOG_ES_URL="+testenv.ElasticsearchURL(t), "AUDITLOG_ES_INDEX_PREFIX="+prefix,
			"AUDITLOG_PERIODIC_SIGNING_KEY="+testKeyFile(t), "AUDITLOG_ACCEPT_KEY="+testAcceptKey(t))
	}
	tok, _ := api.MintToken([]byte("s3cret"), audit.Principal{UserID: demoTenant, Email: "a@x.example", Role: audit.RoleAdmin, TenantID: demoTenant}, time.Hour, time.Now())
	c := client{t, "http://" + addr}
	size := func() int64 {
		code, body := c.tryDo("GET", "/api/log/checkpoint", tok)
		if code != 200 {
			return 0
		}
		n, _ := strconv.ParseInt(strings.Split(string(body), "\n")[1], 10, 64)
		return n
	}
	first := child(t, vars, "serve")
	// The first checkpoint is watched every 10 ms, not with Eventually's
	// backoff (up to a second between looks): SQLite seals the seeded
	// tenant in well under a second, and a look that came after its last
	// round would kill a serve that had nothing left to seal.
	var killedAt int64
	for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if killedAt = size(); killedAt > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no checkpoint within 3 minutes")
		}
	}
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	second := child(t, vars, "serve")
	var total int64
	testenv.Eventually(t, 3*time.Minute, func() error {
		var st struct{ Total int64 }
		if code, body := c.tryDo("GET", "/api/audit-logs/stats?groupBy=action", tok); code != 200 || json.Unmarshal(body, &st) != nil {
			return fmt.Errorf("not serving yet (%d)", code)
		}
		if total = st.Total; size() != total || total == 0 {
			return fmt.Errorf("checkpoint of %d leaves, %d events", size(), total)
		}
		return nil
	})
	t.Logf("%s: killed with %d of the demo tenant's %d events sealed", store, killedAt, total)
	if killedAt >= total {
		t.Fatalf("killed after sealing everything (%d of %d): no crash while sealing", killedAt, total)
	}
	if err := second.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_ = second.Wait()
	checkOneLeafEach(t, store, dir, prefix)
}

// checkOneLeafEach checks, on serve's store, that every stored event of
// every tenant is exactly one leaf.
func checkOneLeafEach(t *testing.T, store, dir, prefix string) {
	t.Helper()
	if store == "sqlite" {
		s, err := sqlite.Open(context.Background(), sqlite.Config{Accept: accepttest.Acceptor, Path: filepath.Join(dir, "audit.db")})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		stored := map[string]audit.Event{}
		tenants, err := s.Tenants(context.Background(), "", audit.MaxTenantPage)
		if err != nil {
			t.Fatal(err)
		}
		for _, tn := range tenants {
			err := s.ScanEvents(context.Background(), audit.Filter{TenantID: tn.ID}, audit.DefaultSort, func(b []audit.Event) error {
				for _, e := range b {
					stored[tn.ID+"/"+e.ID] = e
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		storetest.EveryStoredEventOneLeaf(t, s, stored)
		return
	}
	cl, err := elasticsearch.New(elasticsearch.Config{URLs: []string{testenv.ElasticsearchURL(t)}, IndexPrefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	storetest.EveryStoredEventOneLeaf(t, storeOn(t, cl), testenv.Scan(t, cl, prefix+"-events-*"))
}

// tryDo is do for a server that may not listen yet: status 0 then.
func (c client) tryDo(method, path, tok string) (int, []byte) {
	req, _ := http.NewRequest(method, c.base+path, nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

// TestThreeIndexersOneGroupEveryEventOneLeaf: three indexers share a
// consumer group over six partitions; one is killed with SIGKILL in the
// middle of the stream, and its partitions move to the others, which
// redeliver what it had not committed. Every stored event is one leaf of
// its tenant's log.
func TestThreeIndexersOneGroupEveryEventOneLeaf(t *testing.T) {
	brokers := testenv.KafkaBrokers(t)
	esURL := testenv.ElasticsearchURL(t)
	prefix, topic := testenv.Name("auditlog-three"), testenv.Name("audit-events")
	if err := kafka.EnsureTopics(context.Background(), brokers, kafka.TopicSpec{Name: topic, Partitions: 6}); err != nil {
		t.Fatal(err)
	}
	const n = 30000
	g := gen.New(gen.Config{Seed: 23, Tenants: 12, Skew: 1.0}, n)
	msgs := make([]kafka.Message, n)
	for i := range msgs {
		e := g.Next()
		b, _ := json.Marshal(e)
		msgs[i] = kafka.Message{Key: []byte(e.TenantID), Value: b}
	}
	env := []string{"AUDITLOG_ES_URL=" + esURL, "AUDITLOG_KAFKA_BROKERS=" + strings.Join(brokers, ","), "AUDITLOG_KAFKA_TOPIC=" + topic,
		"AUDITLOG_KAFKA_GROUP=" + topic + "-group", "AUDITLOG_ES_INDEX_PREFIX=" + prefix, "AUDITLOG_HTTP_ADDR=127.0.0.1:0",
		"AUDITLOG_KAFKA_PARTITIONS=6", "AUDITLOG_BATCH_SIZE=500", "AUDITLOG_LOG_LEVEL=warn", "AUDITLOG_ACCEPT_KEY=" + testAcceptKey(t)}
	cl, err := elasticsearch.New(elasticsearch.Config{URLs: []string{esURL}, IndexPrefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	indexers := []*exec.Cmd{child(t, env, "index"), child(t, env, "index"), child(t, env, "index")}
	testenv.Produce(t, brokers, topic, msgs[:n/2])
	testenv.Eventually(t, 3*time.Minute, func() error {
		if c := testenv.Count(t, cl, prefix+"-events-*"); c < n/6 {
			return fmt.Errorf("%d indexed", c)
		}
		return nil
	})
	if err := indexers[0].Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = indexers[0].Wait()
	testenv.Produce(t, brokers, topic, msgs[n/2:])
	testenv.WaitCount(t, cl, prefix+"-events-*", n, 4*time.Minute)
	stored := testenv.Scan(t, cl, prefix+"-events-*") // fails on a repeated id
	if len(stored) != n {
		t.Fatalf("%d distinct events stored, want %d", len(stored), n)
	}
	storetest.EveryStoredEventOneLeaf(t, storeOn(t, cl), stored)
}
