package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
)

// process is `auditlog serve` as a child process, as shipped.
type process struct {
	cmd  *exec.Cmd
	base string
}

func startProcess(ctx context.Context, bin, dir string, vars []string) (*process, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.CommandContext(ctx, bin, "serve")
	cmd.Env = append(append(os.Environ(), "AUDITLOG_HTTP_ADDR="+addr, "AUDITLOG_JWT_SECRET=bench", "AUDITLOG_INGEST_TOKEN=svc", "AUDITLOG_SEED=0",
		"AUDITLOG_PERIODIC_EXPORT=false", "AUDITLOG_LOG_LEVEL=warn", "AUDITLOG_DEFAULT_PLAN=enterprise"), vars...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &process{cmd: cmd, base: "http://" + addr}
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		if res, err := http.Get(p.base + "/readyz"); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return p, nil
			}
		}
		if time.Now().After(deadline) {
			p.stop()
			return nil, fmt.Errorf("auditlog serve not ready after 2 minutes")
		}
	}
}

func (p *process) stop() {
	_ = p.cmd.Process.Signal(os.Interrupt)
	_ = p.cmd.Wait()
}

// loadRuns finds the highest rate served, then offers ten times it.
func loadRuns(ctx context.Context, e *env, store string, srv *process, g *gen.Generator, n int) ([]result, error) {
	targets, err := panelTargets(srv, g)
	if err != nil {
		return nil, err
	}
	stop := ingestAlongside(ctx, srv, g)
	defer stop()
	d := stepLength(e)
	best, miss := highestRate(e, store, srv, targets, d)
	over := 10 * max(best.rate, 25)
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", srv.cmd.Process.Pid), []byte("5"), 0); err != nil {
		return nil, fmt.Errorf("resetting the peak RSS: %w", err)
	}
	log.Printf("  %s: before overload: %s", store, memOf(srv))
	rs := attack(targets, over, d)
	log.Printf("  %s: after overload: %s", store, memOf(srv))
	shed, fast, other := 0, 0, 0
	for _, r := range rs {
		switch r.Code {
		case 200:
		case http.StatusServiceUnavailable, http.StatusTooManyRequests:
			shed++
			if r.Latency <= 50*time.Millisecond {
				fast++
			}
		default:
			other++
		}
	}
	rss, err := vmHWM(srv.cmd.Process.Pid)
	if err != nil {
		return nil, err
	}
	log.Printf("  %s: %d requests/s offered: %d answered, %d refused (%d within 50 ms), %d other; server peak %.0f MB", store, over, len(rs)-shed-other, shed, fast, other, rss)
	method := fmt.Sprintf("`auditlog serve` as shipped (the binary built, its rate limit and in-flight bounds at their defaults) as a process on %s holding %d generated events of 10 tenants, "+
		"with 1,000 events/s of ingest alongside (batches of 100 every 100 ms), once the bulk load's work is done (%s). vegeta offers the panel's requests of every tenant in turn (the first page, the spec's two typical queries, "+
		"a search, the 7-day histogram, an event's detail, the next page) at 25, 50, 100, 150, 200, 300, 400 and 600 requests/s, %s each, up to the first rate whose p99 is over 500 ms or with a request not answered 200; "+
		"then at ten times the highest rate served (at least 250/s) for %s, counting the refusals (503, 429), how many came within 50 ms, every other answer or failure, and the server's VmHWM. One pass.", store, n, steadyState, d, d)
	share := 0.0
	if shed > 0 {
		share = 100 * float64(fast) / float64(shed)
	}
	return []result{
		{Name: store + " panel load: highest rate served (p99 ≤ 500 ms, no error)", Unit: "requests/s", Samples: []float64{float64(best.rate)}, Target: "≥ 200 requests/s", Min: 200, Method: method,
			Notes: loadNote(store, best, miss)},
		{Name: store + " overload at 10×: refusals answered within 50 ms", Unit: "%", Samples: []float64{share}, Target: "(reported)", Method: method,
			Notes: fmt.Sprintf("%d requests/s offered: %d answered 200, %d refused with 503 or 429.", over, len(rs)-shed-other, shed)},
		{Name: store + " overload at 10×: answers other than 200, 503 and 429", Unit: "requests", Samples: []float64{float64(other)}, Target: "0", Max: 0.5, Method: method},
		{Name: store + " overload at 10×: server peak RSS", Unit: "MB", Samples: []float64{rss}, Target: "≤ 256 MB", Max: 256, Method: method},
	}, nil
}

// stepLength is how long each rate is offered.
func stepLength(e *env) time.Duration {
	if e.scale < 0.5 {
		return 2 * time.Second
	}
	return 10 * time.Second
}

// loadRates are the rates offered, rising, requests/s.
var loadRates = []int{25, 50, 100, 150, 200, 300, 400, 600}

// highestRate offers targets at each of loadRates for d, up to the first
// whose p99 is over 500 ms or with a request not answered 200 (miss):
// best is the step before it.
func highestRate(e *env, store string, srv *process, targets []vegeta.Target, d time.Duration) (best, miss loadStep) {
	for _, rate := range loadRates {
		st := runStep(e, store, srv, targets, rate, d)
		if st.p99 > 500 || st.failed > 0 {
			return best, st
		}
		best = st
	}
	return best, miss
}

func p99Of(rs []*vegeta.Result) float64 {
	if len(rs) == 0 {
		return 0
	}
	l := make([]time.Duration, len(rs))
	for i, r := range rs {
		l[i] = r.Latency
	}
	sort.Slice(l, func(a, b int) bool { return l[a] < l[b] })
	return ms(l[min(len(l)-1, len(l)*99/100)])
}

// ingestAlongside posts 100 of g's next events every 100 ms until stopped.
func ingestAlongside(ctx context.Context, srv *process, g *gen.Generator) func() {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			batch := make([]audit.Event, 100)
			for i := range batch {
				batch[i] = g.Next()
			}
			body, _ := json.Marshal(batch)
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.base+"/api/audit-events", bytes.NewReader(body))
			req.Header.Set("Authorization", "Bearer svc")
			req.Header.Set("Content-Type", "application/json")
			if res, err := http.DefaultClient.Do(req); err == nil {
				res.Body.Close()
			}
		}
	}()
	return func() { cancel(); <-done }
}

// memOf says the server's resident memory now, its peak, and the Go
// heap in use (from /metrics), so a peak can be told apart as Go's or
// SQLite's.
func memOf(srv *process) string {
	rss, _ := procStatusMB(srv.cmd.Process.Pid, "VmRSS")
	hwm, _ := vmHWM(srv.cmd.Process.Pid)
	heap := "?"
	if f, ok := metricValue(srv, "go_memstats_heap_inuse_bytes"); ok {
		heap = fmt.Sprintf("%.0f MB", f/1e6)
	}
	return fmt.Sprintf("RSS %.0f MB, peak %.0f MB, Go heap in use %s", rss, hwm, heap)
}

// slowest names the n slowest requests of rs, by path and latency, so
// that a step that misses says which request of the mix did.
func slowest(rs []*vegeta.Result, n int) string {
	s := append([]*vegeta.Result(nil), rs...)
	sort.Slice(s, func(a, b int) bool { return s[a].Latency > s[b].Latency })
	var out []string
	for _, r := range s[:min(n, len(s))] {
		path := r.URL
		if i := strings.Index(path, "/api/"); i >= 0 {
			path = path[i:]
		}
		out = append(out, fmt.Sprintf("%s %d in %.0f ms", path, r.Code, ms(r.Latency)))
	}
	return strings.Join(out, "; ")
}
