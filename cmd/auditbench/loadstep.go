package main

import (
	"fmt"
	"log"
	"runtime"
	"sort"
	"strings"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// loadStep is one rate of the panel-load benchmark: its latency, its
// failures, and the CPU each process on the machine spent a request, so
// that a miss can be told apart as the server's or the machine's.
type loadStep struct {
	rate   int
	p99    float64
	failed int
	total  int
	codes  map[uint16]int
	// CPU milliseconds a request: serve, Elasticsearch (0 on SQLite), and
	// this benchmark (vegeta and the ingest client).
	serve, es, bench float64
	cores            float64 // cores busy on average over the step, all three
}

// runStep offers rate requests/s of targets for d and measures it.
func runStep(e *env, store string, srv *process, targets []vegeta.Target, rate int, d time.Duration) loadStep {
	pids := map[string]int{"serve": srv.cmd.Process.Pid, "bench": 0}
	if pid, ok := e.pids["elasticsearch"]; ok && store == "Elasticsearch" {
		pids["elasticsearch"] = pid
	}
	meter := newCPUMeter(pids)
	rs := attack(targets, rate, d)
	wall := time.Since(meter.t0)
	n := float64(max(len(rs), 1))
	st := loadStep{rate: rate, p99: p99Of(rs), total: len(rs), codes: map[uint16]int{},
		serve: ms(meter.used("serve")) / n, es: ms(meter.used("elasticsearch")) / n, bench: ms(meter.used("bench")) / n}
	st.cores = float64(meter.used("serve")+meter.used("elasticsearch")+meter.used("bench")) / float64(wall)
	for _, r := range rs {
		if r.Code != 200 {
			st.failed++
			st.codes[r.Code]++
		}
	}
	log.Printf("  %s: %d requests/s offered: p99 %.0f ms, %d of %d not answered 200 %v; CPU a request: serve %.1f ms (ingest included), Elasticsearch %.1f ms, benchmark %.1f ms; %.2f of %d cores busy; %s",
		store, rate, st.p99, st.failed, st.total, st.codes, st.serve, st.es, st.bench, st.cores, runtime.NumCPU(), memOf(srv))
	if st.p99 > 500 || st.failed > 0 {
		log.Printf("  %s: the slowest requests at %d/s: %s", store, rate, slowest(rs, 5))
	}
	return st
}

// loadNote says what the highest rate served cost, and, when a next rate
// missed, what it missed by and how busy the machine's cores were: on a
// machine whose cores serve, Elasticsearch and the load generator share,
// the CPU a request sets a ceiling no server change lifts.
func loadNote(store string, best, miss loadStep) string {
	cpus := runtime.NumCPU()
	perReq := best.serve + best.es + best.bench
	s := fmt.Sprintf("p99 at that rate: %.0f ms. CPU a request there: serve %.1f ms (the 1,000 events/s of ingest alongside included)", best.p99, best.serve)
	if best.es > 0 {
		s += fmt.Sprintf(", Elasticsearch %.1f ms", best.es)
	}
	s += fmt.Sprintf(", this benchmark (vegeta, the ingest client) %.1f ms: %d cores at full use would serve about %.0f requests/s in all.", best.bench, cpus, float64(cpus)*1000/max(perReq, 0.001))
	if miss.rate > 0 {
		es := ""
		if miss.es > 0 {
			es = fmt.Sprintf(", Elasticsearch %.1f ms", miss.es)
		}
		s += fmt.Sprintf(" At %d requests/s: p99 %.0f ms, %d of %d not answered 200%s, %.2f of %d cores busy (serve %.1f ms%s, benchmark %.1f ms a request).",
			miss.rate, miss.p99, miss.failed, miss.total, statusCounts(miss.codes), miss.cores, cpus, miss.serve, es, miss.bench)
	}
	return s
}

// statusCounts says how many answers had each status (" (503: 146)").
func statusCounts(codes map[uint16]int) string {
	var parts []string
	for code, n := range codes {
		parts = append(parts, fmt.Sprintf("%d: %d", code, n))
	}
	if len(parts) == 0 {
		return ""
	}
	sort.Strings(parts)
	return " (" + strings.Join(parts, ", ") + ")"
}
