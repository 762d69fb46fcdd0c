package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"github.com/auditlog/auditlog/audit/retention"
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
	rate, fromFirst, cpuPerK, startup float64
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
	return processRun{rate: float64(n) / wall.Seconds(), fromFirst: float64(n) / (wall.Seconds() - first), cpuPerK: perThousand(cpu, n), startup: first}, nil
}

// indexBinaryRun runs `auditlog index` as users run it (its default
// configuration, on a topic with the partitions it creates by default),
// on a new consumer group and index prefix whose tenants' plans are set
// beforehand, and times it from the process's start until its log (at
// debug level) says the batch holding the last event is written; its CPU
// is read from /proc at that moment, before it is stopped with SIGTERM.
// With profile set, the process writes a CPU profile of the run there
// (AUDITLOG_CPU_PROFILE) as it stops.
func indexBinaryRun(ctx context.Context, e *env, bin string, tenants []gen.Tenant, topic string, n int, profile string) (processRun, error) {
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
		"AUDITLOG_KAFKA_TOPIC="+topic, "AUDITLOG_KAFKA_GROUP="+uniq("bench-group"), "AUDITLOG_HTTP_ADDR="+addr, "AUDITLOG_LOG_LEVEL=debug",
		"AUDITLOG_CPU_PROFILE="+profile,
		"AUDITLOG_LOG_FORMAT=json", // the lines readBatches parses, whatever the caller's environment says (make exports text)
		"AUDITLOG_ACCEPT_KEY="+e.acceptFile)
	cmd.Stderr = os.Stderr
	logs, err := cmd.StdoutPipe() // its log
	if err != nil {
		return processRun{}, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return processRun{}, err
	}
	stop := make(chan struct{})
	batches := make(chan writtenBatch)
	read := make(chan struct{})
	go func() {
		defer close(read)
		readBatches(logs, batches, stop)
	}()
	defer func() {
		close(stop)
		_ = cmd.Process.Signal(syscall.SIGTERM)
		<-read
		_ = cmd.Wait()
	}()
	var run processRun
	var first writtenBatch
	done := 0
	timeout := time.After(10 * time.Minute)
	for {
		select {
		case b, ok := <-batches:
			if !ok {
				return run, fmt.Errorf("auditlog index ended its log after %d of %d events", done, n)
			}
			if run.startup == 0 {
				run.startup, first = b.at.Sub(start).Seconds(), b
			}
			if b.DeadLettered > 0 {
				return run, fmt.Errorf("auditlog index dead-lettered events")
			}
			if done += b.Created + b.Duplicates; done >= n {
				run.rate = float64(n) / b.at.Sub(start).Seconds()
				run.fromFirst = float64(n-first.Created-first.Duplicates) / b.at.Sub(first.at).Seconds()
				run.cpuPerK = perThousand(cpuTime(cmd.Process.Pid), n)
				return run, nil
			}
		case <-timeout:
			return run, fmt.Errorf("auditlog index did not index %d events in 10 minutes (%d done)", n, done)
		}
	}
}

// writtenBatch is one "batch written" line of `auditlog index` at debug
// level, and when it was read.
type writtenBatch struct {
	at                                time.Time
	Msg                               string
	Created, Duplicates, DeadLettered int
}

// readBatches reads the process's log lines until they end, then closes
// batches: each "batch written" line goes to batches (until stop), any
// other to the benchmark's standard error. The end of a run is seen from these lines
// the moment the last batch is written, where scraping /metrics as
// often cost the process about 10% more CPU per event (a scrape is about
// 1.7 ms of its CPU).
func readBatches(r io.Reader, batches chan<- writtenBatch, stop <-chan struct{}) {
	defer close(batches)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var b writtenBatch
		if json.Unmarshal(sc.Bytes(), &b) != nil || b.Msg != "batch written" {
			fmt.Fprintln(os.Stderr, sc.Text())
			continue
		}
		b.at = time.Now()
		select {
		case batches <- b:
		case <-stop:
		}
	}
}

// benchStoreWithPlans bootstraps a store under prefix, with the store
// configuration sc, and the tenants' plans set (so that `auditlog index`
// on the same prefix writes each tenant where the in-process indexer's
// run does). Each plan is set as `auditlog tenant set-plan` sets it, with
// its record in the tenant's log (retention.ChangePlan): a plan set in the
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
		if err := retention.ChangePlan(ctx, s, s, t.ID, t.Plan, def, time.Now()); err != nil {
			return nil, err
		}
	}
	return s, nil
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
	ixRate, ixFirst, ixCPU, ixStart, cpRate, cpFirst, cpCPU []float64
	// profile is where the last run's `auditlog index` writes its CPU
	// profile; top is what it says.
	profile, top string
}

// run measures `auditlog index` and the copier on the topic, one after
// the other, the order alternating between runs; keep says whether the
// run counts (run 0 is the warm-up).
func (p *peerSamples) run(ctx context.Context, e *env, bins peerBinaries, tenants []gen.Tenant, topic string, n, run int, profiled bool) error {
	var ix, cp processRun
	var err error
	profile := ""
	if profiled {
		profile = p.profile
	}
	steps := []func() error{
		func() error { ix, err = indexBinaryRun(ctx, e, bins.auditlog, tenants, topic, n, profile); return err },
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
		p.ixFirst, p.cpFirst = append(p.ixFirst, ix.fromFirst), append(p.cpFirst, cp.fromFirst)
	}
	if profiled {
		p.top = profileTop(ctx, bins.auditlog, p.profile)
	}
	return nil
}

// rows are the rows that put the shipped indexer beside the copier.
func (p *peerSamples) rows(n, size int) []result {
	method := fmt.Sprintf("The %d events (about %d bytes each) of the indexer row, produced to a topic of %d partitions (what `auditlog index` creates by default), read by two programs as users run them, each as its own process on a new consumer group, timed from the process's start: "+
		"`auditlog index` (the shipped binary, built by `go build ./cmd/auditlog`, its default configuration: batches of up to 1,000 events, 200 ms linger, one worker per partition; it validates, masks, computes diffs and queues every event for sealing) until its log (at debug level, one line a batch) says the last event is acknowledged by Elasticsearch, its CPU read from /proc then (the whole process: the Kafka client, decoding, validation, the `_bulk` requests, the collector); "+
		"and the plain copier (`cmd/auditbench/copier`, a module of its own: kafka-go's Reader and go-elasticsearch's `esutil.BulkIndexer` with %d workers, each message indexed as it is with `create` and the event's id, read with encoding/json, as its _id, its offset committed once acknowledged, nothing validated) until it reports every message acknowledged, its CPU read from /proc then. "+
		"From the first event: `auditlog index` from its first batch written to its last (the events after the first batch), the copier from its first message fetched to its last acknowledged; both leave out the start-up and the consumer group's join. "+
		"The copier writes one plain index with the events' own mapping (timestamp a date instead of an alias), the indexer its plans' data streams. One warm-up, then %d runs, the order of the two alternating.",
		n, size, shippedPartitions, benchPartitions, len(p.ixRate))
	profile := ""
	if p.top != "" {
		profile = "Where the CPU goes: `auditlog index`'s own CPU profile of the last run (`AUDITLOG_CPU_PROFILE`, the whole process from start to stop, `go tool pprof -top`; flat is the function itself, cum with what it calls):\n\n```\n" + p.top + "```"
	}
	return []result{
		{Name: "Indexer as shipped (`auditlog index`) vs a plain copier: events/s from start", Unit: "events/s", Samples: p.ixRate, Ceiling: p.cpRate,
			Target: "(peer: reported)", Method: method,
			Notes: fmt.Sprintf("Start-up of `auditlog index` to its first batch written (in the rate), per run: %s s.", fmtSeconds(p.ixStart))},
		{Name: "Indexer as shipped (`auditlog index`) vs a plain copier: events/s from the first event", Unit: "events/s", Samples: p.ixFirst, Ceiling: p.cpFirst,
			Target: "≥ 0.80 of the copier's rate", MinRatio: 0.8, Method: method},
		{Name: "Indexer as shipped (`auditlog index`) vs a plain copier: CPU per 1,000 events", Unit: "ms", Samples: p.ixCPU, Ceiling: p.cpCPU,
			Target: "≤ 12 ms per 1,000 events (and reported against the copier's)", Max: 12, Method: method, Notes: profile},
	}
}

// profileTop is the head of `go tool pprof -top` on the profile (the
// binary given for its symbols), or why it could not be read.
func profileTop(ctx context.Context, bin, profile string) string {
	out, err := exec.CommandContext(ctx, "go", "tool", "pprof", "-top", "-nodecount=25", bin, profile).Output()
	if err != nil {
		return fmt.Sprintf("(go tool pprof failed: %v)\n", err)
	}
	return string(out)
}
