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
	return copyInto(ctx, e, s, bin, topic, n, body)
}

// copyInto is copierRun into a new index of s's cluster created with body.
func copyInto(ctx context.Context, e *env, s *elasticsearch.Store, bin, topic string, n int, body map[string]any) (processRun, error) {
	index := uniq("bench-copier")
	if err := s.Client().DoJSON(ctx, http.MethodPut, "/"+index, body, nil); err != nil {
		return processRun{}, err
	}
	// Deleted once measured: its merges would otherwise go on taking
	// the cluster's CPU from the runs that follow.
	defer func() {
		if err := s.Client().DoJSON(ctx, http.MethodDelete, "/"+index, nil, nil); err != nil {
			log.Printf("  deleting %s: %v", index, err)
		}
	}()
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

// peerSamples collects, run by run, the shipped indexer's, the plain
// copier's and the documents' copier's figures.
type peerSamples struct {
	ixRate, ixFirst, ixCPU, ixStart, cpRate, cpFirst, cpCPU, dcFirst, dpFirst []float64
	// docTopic holds the documents the indexer writes (produceDocTopic).
	docTopic string
	// profile is where the last run's `auditlog index` writes its CPU
	// profile; top is what it says.
	profile, top string
}

// run measures `auditlog index`, the plain copier and the documents'
// copier (into the streams' settings, and into a plain index) on the
// topic, one after the other, the order rotating between runs; run 0 is
// the warm-up, which does not count.
func (p *peerSamples) run(ctx context.Context, e *env, bins peerBinaries, tenants []gen.Tenant, topic string, n, run int, profiled bool) error {
	var ix, cp, dc, dp processRun
	var err error
	profile := ""
	if profiled {
		profile = p.profile
	}
	steps := []func() error{
		func() error { ix, err = indexBinaryRun(ctx, e, bins.auditlog, tenants, topic, n, profile); return err },
		func() error { cp, err = copierRun(ctx, e, bins.copier, topic, n); return err },
		func() error { dc, err = docsCopierRun(ctx, e, bins.copier, p.docTopic, n, true); return err },
		func() error { dp, err = docsCopierRun(ctx, e, bins.copier, p.docTopic, n, false); return err },
	}
	for i := range steps {
		settleCluster(e)
		if err := steps[(i+run)%len(steps)](); err != nil {
			return err
		}
	}
	log.Printf("  run %d: auditlog index %.0f ev/s, %.1f ms CPU per 1,000 (start-up %.1f s); copier %.0f ev/s, %.1f ms CPU per 1,000; documents' copier %.0f ev/s from the first (%.0f into a plain index)",
		run, ix.rate, ix.cpuPerK, ix.startup, cp.rate, cp.cpuPerK, dc.fromFirst, dp.fromFirst)
	if run > 0 {
		p.ixRate, p.ixCPU, p.ixStart = append(p.ixRate, ix.rate), append(p.ixCPU, ix.cpuPerK), append(p.ixStart, ix.startup)
		p.cpRate, p.cpCPU = append(p.cpRate, cp.rate), append(p.cpCPU, cp.cpuPerK)
		p.ixFirst, p.cpFirst = append(p.ixFirst, ix.fromFirst), append(p.cpFirst, cp.fromFirst)
		p.dcFirst, p.dpFirst = append(p.dcFirst, dc.fromFirst), append(p.dpFirst, dp.fromFirst)
	}
	if profiled {
		p.top = profileTop(ctx, bins.auditlog, p.profile)
	}
	return nil
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
