package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/gen"
)

// processRun is what one run of a program as users run it measured: the
// rate from the process's start to the last event acknowledged, the CPU
// (user + system) the process used by then, and the time to the first
// event consumed (the start-up a user waits for).
type processRun struct {
	rate, cpuPerK, startup float64
}

// peerBinaries are `auditlog` (this module's cmd/auditlog, as `make
// build` makes it) and the plain copier (cmd/auditbench/copier, a module
// of its own), built once into dir.
type peerBinaries struct{ auditlog, copier string }

func buildPeers(ctx context.Context, dir string) (peerBinaries, error) {
	b := peerBinaries{auditlog: filepath.Join(dir, "auditlog"), copier: filepath.Join(dir, "copier")}
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", b.auditlog, "./cmd/auditlog").CombinedOutput(); err != nil {
		return b, fmt.Errorf("go build ./cmd/auditlog: %v: %s", err, out)
	}
	if out, err := exec.CommandContext(ctx, "go", "build", "-C", "cmd/auditbench/copier", "-o", b.copier, ".").CombinedOutput(); err != nil {
		return b, fmt.Errorf("go build the copier: %v: %s", err, out)
	}
	return b, nil
}

// copierRun copies the topic's n messages into a new plain index with the
// copier, and times it from its start until it says every message is
// acknowledged (its CPU is read then, before it closes its reader).
func copierRun(ctx context.Context, e *env, bin, topic string, n int) (processRun, error) {
	s, err := freshStore(ctx, e, nil)
	if err != nil {
		return processRun{}, err
	}
	body, err := elasticsearch.PlainEventsIndex()
	if err != nil {
		return processRun{}, err
	}
	index := uniq("bench-copier")
	if err := s.Client().DoJSON(ctx, http.MethodPut, "/"+index, body, nil); err != nil {
		return processRun{}, err
	}
	cmd := exec.CommandContext(ctx, bin, "-brokers", strings.Join(e.brokers, ","), "-topic", topic, "-group", uniq("bench-copier"),
		"-es", e.esURL, "-index", index, "-n", strconv.Itoa(n), "-workers", strconv.Itoa(benchPartitions))
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return processRun{}, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return processRun{}, err
	}
	line, _ := bufio.NewReader(stdout).ReadString('\n') // every message acknowledged
	wall, cpu := time.Since(start), cpuTime(cmd.Process.Pid)
	_, _ = io.Copy(io.Discard, stdout)
	if err := cmd.Wait(); err != nil {
		return processRun{}, fmt.Errorf("copier: %w", err)
	}
	log.Printf("  copier: %s", strings.TrimSpace(line))
	var first float64
	if _, err := fmt.Sscanf(line, "first=%f", &first); err != nil {
		return processRun{}, fmt.Errorf("copier said %q", line)
	}
	return processRun{rate: float64(n) / wall.Seconds(), cpuPerK: perThousand(cpu, n), startup: first}, nil
}

// indexBinaryRun runs `auditlog index` as users run it (its defaults but
// the batch, the partitions and the linger of the in-process indexer
// row), on a new consumer group and index prefix whose tenants' plans are
// set beforehand, and times it from the process's start until its
// metrics count every event acknowledged; its CPU is read from /proc at
// that moment, before it is stopped with SIGTERM.
func indexBinaryRun(ctx context.Context, e *env, bin string, tenants []gen.Tenant, topic string, n int) (processRun, error) {
	prefix := uniq("bench")
	if _, err := benchStoreWithPlans(ctx, e, prefix, tenants, elasticsearch.StoreConfig{Accept: benchAccept}); err != nil {
		return processRun{}, err
	}
	addr, err := freeAddr()
	if err != nil {
		return processRun{}, err
	}
	cmd := exec.Command(bin, "index")
	cmd.Env = append(os.Environ(), "AUDITLOG_ES_URL="+e.esURL, "AUDITLOG_ES_INDEX_PREFIX="+prefix, "AUDITLOG_KAFKA_BROKERS="+strings.Join(e.brokers, ","),
		"AUDITLOG_KAFKA_TOPIC="+topic, "AUDITLOG_KAFKA_GROUP="+uniq("bench-group"), "AUDITLOG_KAFKA_PARTITIONS="+strconv.Itoa(benchPartitions),
		"AUDITLOG_BATCH_SIZE="+strconv.Itoa(benchBatch), "AUDITLOG_BATCH_LINGER=50ms", "AUDITLOG_HTTP_ADDR="+addr, "AUDITLOG_LOG_LEVEL=warn",
		"AUDITLOG_ACCEPT_KEY="+e.acceptFile)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return processRun{}, err
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	}()
	var run processRun
	deadline := time.Now().Add(10 * time.Minute)
	for time.Now().Before(deadline) {
		m := scrapeCounters("http://" + addr + "/metrics")
		if run.startup == 0 && m["auditlog_indexer_events_consumed_total"] > 0 {
			run.startup = time.Since(start).Seconds()
		}
		if m["auditlog_indexer_events_dead_lettered_total"] > 0 {
			return run, fmt.Errorf("auditlog index dead-lettered events")
		}
		done := m["auditlog_indexer_events_indexed_total"] + m["auditlog_indexer_events_duplicate_total"]
		if done >= float64(n) {
			cpu := cpuTime(cmd.Process.Pid)
			run.rate = float64(n) / time.Since(start).Seconds()
			run.cpuPerK = perThousand(cpu, n)
			return run, nil
		}
		// Each scrape costs the process CPU (its /metrics page is
		// rendered): every 100 ms until 90% is done, then every 10 ms, so
		// the end is seen within 10 ms for few scrapes in all.
		wait := 100 * time.Millisecond
		if done >= 0.9*float64(n) {
			wait = 10 * time.Millisecond
		}
		time.Sleep(wait)
	}
	return run, fmt.Errorf("auditlog index did not index %d events in 10 minutes", n)
}

// benchStoreWithPlans bootstraps a store under prefix, with the store
// configuration sc, and the tenants' plans set (so that `auditlog index`
// on the same prefix writes each tenant where the in-process indexer's
// run does). Each plan is set as `auditlog tenant set-plan` sets it, with
// its record in the tenant's log (audit.ChangePlan): a plan set in the
// directory alone is one the log does not authorize, which the lifecycle
// worker of `auditlog index` puts back while it is measured, moving the
// tenant's events between streams (issue 53).
func benchStoreWithPlans(ctx context.Context, e *env, prefix string, tenants []gen.Tenant, sc elasticsearch.StoreConfig) (*elasticsearch.Store, error) {
	s, err := benchStore(ctx, e, elasticsearch.Config{IndexPrefix: prefix}, sc)
	if err != nil {
		return nil, err
	}
	def := sc.DefaultPlan
	if def == "" {
		def = audit.PlanEnterprise
	}
	for _, t := range tenants {
		if err := audit.ChangePlan(ctx, s, s, t.ID, t.Plan, def, time.Now()); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// scrapeCounters reads the unlabelled samples of a Prometheus text page,
// and the sum over labels of the labelled ones; an unreachable page reads
// as empty (the process is still starting).
func scrapeCounters(url string) map[string]float64 {
	out := map[string]float64{}
	res, err := http.Get(url)
	if err != nil {
		return out
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		name, rest, _ := strings.Cut(line, " ")
		if i := strings.IndexByte(name, '{'); i >= 0 {
			name, rest = line[:i], line[strings.LastIndexByte(line, '}')+2:]
		}
		if v, err := strconv.ParseFloat(strings.Fields(rest)[0], 64); err == nil {
			out[name] += v
		}
	}
	return out
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// peerSamples collects, run by run, the shipped indexer's and the
// copier's figures.
type peerSamples struct {
	ixRate, ixCPU, ixStart, cpRate, cpCPU []float64
}

// run measures `auditlog index` and the copier on the topic, one after
// the other, the order alternating between runs; keep says whether the
// run counts (run 0 is the warm-up).
func (p *peerSamples) run(ctx context.Context, e *env, bins peerBinaries, tenants []gen.Tenant, topic string, n, run int) error {
	var ix, cp processRun
	var err error
	steps := []func() error{
		func() error { ix, err = indexBinaryRun(ctx, e, bins.auditlog, tenants, topic, n); return err },
		func() error { cp, err = copierRun(ctx, e, bins.copier, topic, n); return err },
	}
	if run%2 == 1 {
		steps[0], steps[1] = steps[1], steps[0]
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	log.Printf("  run %d: auditlog index %.0f ev/s, %.1f ms CPU per 1,000 (start-up %.1f s); copier %.0f ev/s, %.1f ms CPU per 1,000",
		run, ix.rate, ix.cpuPerK, ix.startup, cp.rate, cp.cpuPerK)
	if run > 0 {
		p.ixRate, p.ixCPU, p.ixStart = append(p.ixRate, ix.rate), append(p.ixCPU, ix.cpuPerK), append(p.ixStart, ix.startup)
		p.cpRate, p.cpCPU = append(p.cpRate, cp.rate), append(p.cpCPU, cp.cpuPerK)
	}
	return nil
}

// rows are the two rows that put the shipped indexer beside the copier.
func (p *peerSamples) rows(n, size int) []result {
	method := fmt.Sprintf("The %d events (about %d bytes each) of the indexer row's topic, read by two programs as users run them, each as its own process on a new consumer group, timed from the process's start: "+
		"`auditlog index` (the shipped binary, built by `go build ./cmd/auditlog`, its defaults but batch %d, linger 50 ms, %d partitions, as the in-process row; it validates, masks, computes diffs and queues every event for sealing) until its `/metrics` count every event acknowledged by Elasticsearch (scraped every 100 ms, every 10 ms past 90%%), its CPU read from /proc then; "+
		"and the plain copier (`cmd/auditbench/copier`, a module of its own: kafka-go's Reader and go-elasticsearch's `esutil.BulkIndexer` with %d workers, each message indexed as it is with `create` and the event's id, read with encoding/json, as its _id, its offset committed once acknowledged, nothing validated) until it reports every message acknowledged, its CPU read from /proc then. "+
		"The copier writes one plain index with the events' own mapping (timestamp a date instead of an alias), the indexer its plans' data streams. One warm-up, then %d runs, the order of the two alternating.",
		n, size, benchBatch, benchPartitions, benchPartitions, len(p.ixRate))
	return []result{
		{Name: "Indexer as shipped (`auditlog index`) vs a plain copier: events/s from start", Unit: "events/s", Samples: p.ixRate, Ceiling: p.cpRate,
			Target: "(peer: reported)", Method: method,
			Notes: fmt.Sprintf("Start-up of `auditlog index` to its first event consumed (in the rate), per run: %s s.", fmtSeconds(p.ixStart))},
		{Name: "Indexer as shipped (`auditlog index`) vs a plain copier: CPU per 1,000 events", Unit: "ms", Samples: p.ixCPU, Ceiling: p.cpCPU,
			Target: "≤ 1.00× the copier's CPU per event", MaxRatio: 1.0, Method: method},
	}
}
