package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/kafka"
	kgo "github.com/segmentio/kafka-go"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/internal/testkit/storetest"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
)

// TestMain lets a test re-run this binary as `auditlog <command>`: the
// real wiring in a child process that a test can kill.
func TestMain(m *testing.M) {
	if os.Getenv("AUDITLOG_TEST_CHILD") == "1" {
		os.Exit(run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// child starts `auditlog <args>` as a child process with env.
func child(t *testing.T, env []string, args ...string) *exec.Cmd {
	t.Helper()
	return childOf(t, os.Args[0], append([]string{"AUDITLOG_TEST_CHILD=1"}, env...), args...)
}

// childOf starts the binary bin with args and env as a child process,
// killed when the test ends.
func childOf(t *testing.T, bin string, env []string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	if os.Getenv("AUDITLOG_TEST_VERBOSE") != "" {
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd
}

// TestIndexerSurvivesSIGKILL kills the indexer with SIGKILL in the middle
// of a stream of 50,000 events and starts it again: every event is
// indexed exactly once. The events carry no id, so the ids derived from
// topic, partition and offset are what keeps redeliveries out, and each
// stored event is one leaf of its tenant's verifiable log. Then
// SIGTERM stops it cleanly, with every offset committed.
func TestIndexerSurvivesSIGKILL(t *testing.T) {
	brokers := testenv.KafkaBrokers(t)
	esURL := testenv.ElasticsearchURL(t)
	prefix, topic := testenv.Name("auditlog-crash"), testenv.Name("audit-events")
	group := topic + "-group"
	ctx := context.Background()
	if err := kafka.EnsureTopics(ctx, brokers, kafka.TopicSpec{Name: topic, Partitions: 4}); err != nil {
		t.Fatal(err)
	}
	const n = 50000
	g := gen.New(gen.Config{Seed: 11, Tenants: 20, Skew: 1.0}, n)
	msgs := make([]kafka.Message, n)
	for i := range msgs {
		e := g.Next()
		b, _ := json.Marshal(e)
		if strings.Contains(string(b), `"id":"evt`) {
			t.Fatal("the events of this test must come without ids")
		}
		msgs[i] = kafka.Message{Key: []byte(e.TenantID), Value: b}
	}
	env := []string{
		"AUDITLOG_ES_URL=" + esURL, "AUDITLOG_KAFKA_BROKERS=" + strings.Join(brokers, ","),
		"AUDITLOG_KAFKA_TOPIC=" + topic, "AUDITLOG_KAFKA_GROUP=" + group, "AUDITLOG_ES_INDEX_PREFIX=" + prefix,
		"AUDITLOG_HTTP_ADDR=127.0.0.1:0", "AUDITLOG_KAFKA_PARTITIONS=4", "AUDITLOG_BATCH_SIZE=500",
		"AUDITLOG_SHUTDOWN_TIMEOUT=30s", "AUDITLOG_LOG_LEVEL=warn", "AUDITLOG_ACCEPT_KEY=" + testAcceptKey(t),
	}
	// The first half is produced while the first indexer runs, the second
	// only after it is killed: the crash always falls in the middle of the
	// stream, however fast the indexer is.
	produced := make(chan struct{})
	go func() { defer close(produced); testenv.Produce(t, brokers, topic, msgs[:n/2]) }()

	client, err := elasticsearch.New(elasticsearch.Config{URLs: []string{esURL}, IndexPrefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	pattern := prefix + "-events-*"
	first := child(t, env, "index")
	testenv.Eventually(t, 3*time.Minute, func() error {
		if c := testenv.Count(t, client, pattern); c < 5000 {
			return fmt.Errorf("%d events indexed so far", c)
		}
		return nil
	})
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	killedAt := testenv.Count(t, client, pattern)
	if killedAt >= n {
		t.Fatalf("the indexer was killed after the whole stream (%d events): not a crash in the middle", killedAt)
	}
	t.Logf("killed with %d of %d events indexed", killedAt, n)
	<-produced
	testenv.Produce(t, brokers, topic, msgs[n/2:])

	second := child(t, env, "index")
	restart := time.Now()
	// The first event of the second half marks the end of the restart
	// stall: the old member's session (AUDITLOG_KAFKA_SESSION_TIMEOUT, 6s)
	// must expire before its partitions move. With kafka-go's default of
	// 30s it took 30.4–30.7s on every restart; the bound leaves room for a
	// loaded machine while catching that default coming back.
	testenv.Eventually(t, 2*time.Minute, func() error {
		if c := testenv.Count(t, client, pattern); c <= killedAt {
			return fmt.Errorf("%d indexed", c)
		}
		return nil
	})
	t.Logf("restart to first new event: %s", time.Since(restart).Round(100*time.Millisecond))
	if d := time.Since(restart); d > 20*time.Second {
		t.Errorf("the restarted indexer took %s to index its first new event, want under 20s", d.Round(time.Second))
	}
	testenv.WaitCount(t, client, pattern, n, 4*time.Minute)
	stored := testenv.Scan(t, client, pattern) // fails on a repeated id
	if len(stored) != n {
		t.Fatalf("%d distinct events stored, want %d", len(stored), n)
	}
	for id := range stored {
		if !audit.ValidID(id) {
			t.Fatalf("derived id %q is not evt_audit_ + UUIDv7", id)
		}
	}
	// The killed indexer's last batch was stored, maybe not queued for
	// sealing: redelivered, it was. Every stored event is one leaf.
	storetest.EveryStoredEventOneLeaf(t, storeOn(t, client), stored)

	// SIGTERM: flush, commit, exit 0 within the shutdown timeout.
	if err := second.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- second.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("indexer exited with %v after SIGTERM", err)
		}
	case <-time.After(45 * time.Second):
		t.Fatal("indexer did not exit within 45s of SIGTERM")
	}
	committed := testenv.Committed(t, brokers, group, topic, 4)
	if committed != n {
		t.Fatalf("committed offsets add up to %d after a clean stop, want %d", committed, n)
	}
}

// TestIndexerSIGTERMWhileJoiningExitsPromptly: an indexer restarted after
// a SIGKILL waits in the group join for its old self's session to expire
// (here made 30s long); SIGTERM in that wait must exit 0 promptly (it
// exited 1 after the shutdown timeout, "indexer did not stop in time").
func TestIndexerSIGTERMWhileJoiningExitsPromptly(t *testing.T) {
	brokers := testenv.KafkaBrokers(t)
	esURL := testenv.ElasticsearchURL(t)
	topic := testenv.Name("audit-events")
	if err := kafka.EnsureTopics(context.Background(), brokers, kafka.TopicSpec{Name: topic, Partitions: 2}); err != nil {
		t.Fatal(err)
	}
	env := []string{"AUDITLOG_ES_URL=" + esURL, "AUDITLOG_KAFKA_BROKERS=" + strings.Join(brokers, ","), "AUDITLOG_KAFKA_TOPIC=" + topic,
		"AUDITLOG_KAFKA_GROUP=" + topic + "-group", "AUDITLOG_ES_INDEX_PREFIX=" + testenv.Name("auditlog-join"), "AUDITLOG_HTTP_ADDR=127.0.0.1:0",
		"AUDITLOG_KAFKA_PARTITIONS=2", "AUDITLOG_KAFKA_SESSION_TIMEOUT=30s", "AUDITLOG_KAFKA_HEARTBEAT_INTERVAL=3s",
		"AUDITLOG_KAFKA_REBALANCE_TIMEOUT=30s", "AUDITLOG_SHUTDOWN_TIMEOUT=20s", "AUDITLOG_LOG_LEVEL=warn", "AUDITLOG_ACCEPT_KEY=" + testAcceptKey(t)}
	g := gen.New(gen.Config{Seed: 3, Tenants: 1}, 10)
	var msgs []kafka.Message
	for i := 0; i < 10; i++ {
		b, _ := json.Marshal(g.Next())
		msgs = append(msgs, kafka.Message{Key: []byte("k"), Value: b})
	}
	testenv.Produce(t, brokers, topic, msgs)
	client, err := elasticsearch.New(elasticsearch.Config{URLs: []string{esURL}, IndexPrefix: strings.TrimPrefix(env[4], "AUDITLOG_ES_INDEX_PREFIX=")})
	if err != nil {
		t.Fatal(err)
	}
	first := child(t, env, "index")
	testenv.WaitCount(t, client, strings.TrimPrefix(env[4], "AUDITLOG_ES_INDEX_PREFIX=")+"-events-*", 10, 2*time.Minute)
	_ = first.Process.Signal(syscall.SIGKILL)
	_ = first.Wait()
	second := child(t, env, "index")
	waitGroupState(t, brokers, topic+"-group", "PreparingRebalance") // the second is in the join, which lasts until the old session expires
	if err := second.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	exited := make(chan error, 1)
	go func() { exited <- second.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("SIGTERM during the join: %v after %s, want exit 0", err, time.Since(start).Round(100*time.Millisecond))
		}
		t.Logf("exited 0, %s after SIGTERM", time.Since(start).Round(100*time.Millisecond))
	case <-time.After(15 * time.Second):
		t.Fatal("no exit within 15s of SIGTERM during the join")
	}
}

// TestIndexReadinessAndMetrics starts the real index wiring in-process on
// :0: /healthz answers at once, /readyz turns ready once Elasticsearch and
// Kafka answer and the bootstrap is done, and /metrics carries the
// indexer's metrics.
func TestIndexReadinessAndMetrics(t *testing.T) {
	brokers := testenv.KafkaBrokers(t)
	esURL := testenv.ElasticsearchURL(t)
	m := startMain(t, "index", map[string]string{
		"AUDITLOG_ES_URL": esURL, "AUDITLOG_KAFKA_BROKERS": strings.Join(brokers, ","),
		"AUDITLOG_KAFKA_TOPIC": testenv.Name("audit-events"), "AUDITLOG_ES_INDEX_PREFIX": testenv.Name("auditlog-ready"),
		"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_KAFKA_PARTITIONS": "2", "AUDITLOG_ACCEPT_KEY": testAcceptKey(t),
	})
	get := func(path string) (int, string) {
		res, err := http.Get("http://" + m.Addr() + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if code, _ := get("/healthz"); code != 200 {
		t.Fatalf("/healthz %d", code)
	}
	testenv.Eventually(t, 2*time.Minute, func() error {
		code, body := get("/readyz")
		if code != 200 {
			return fmt.Errorf("/readyz %d %s", code, body)
		}
		for _, dep := range []string{`"elasticsearch":{"status":"up"}`, `"kafka":{"status":"up"}`, `"indexer":{"status":"up"}`} {
			if !strings.Contains(body, dep) {
				return fmt.Errorf("/readyz lacks %s: %s", dep, body)
			}
		}
		return nil
	})
	_, metrics := get("/metrics")
	for _, name := range []string{"auditlog_indexer_events_consumed_total", "auditlog_indexer_bulk_duration_seconds"} {
		if !strings.Contains(metrics, name) {
			t.Errorf("/metrics lacks %s", name)
		}
	}
}

// waitGroupState waits until the broker reports the consumer group in the
// given state (for example PreparingRebalance: a member asked to join and
// the group waits for the others).
func waitGroupState(t *testing.T, brokers []string, group, want string) {
	t.Helper()
	c := &kgo.Client{Addr: kgo.TCP(brokers...), Timeout: 5 * time.Second}
	var last string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		res, err := c.DescribeGroups(context.Background(), &kgo.DescribeGroupsRequest{GroupIDs: []string{group}})
		if err == nil && len(res.Groups) == 1 {
			if last = res.Groups[0].GroupState; last == want {
				return
			}
		}
	}
	t.Fatalf("group %s never reached %s (last state %q)", group, want, last)
}

// storeOn is an Elasticsearch store on c's cluster and prefix, already
// bootstrapped by the process under test.
func storeOn(t *testing.T, c *elasticsearch.Client) *elasticsearch.Store {
	t.Helper()
	caps, err := c.Detect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s, err := elasticsearch.NewStore(c, caps, elasticsearch.StoreConfig{Accept: accepttest.Acceptor})
	if err != nil {
		t.Fatal(err)
	}
	return s
}
