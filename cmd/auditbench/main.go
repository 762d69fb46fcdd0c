// Command auditbench runs the benchmarks of `make bench` against the real
// services and rewrites BENCHMARKS.md. Every figure is measured side by
// side with its ceiling in the same run, repeated, and reported as the
// median with its min and max: the machine is shared and noisy, so ratios
// of medians are what compare.
//
// It reads AUDITLOG_TEST_ES_URL and AUDITLOG_TEST_KAFKA_BROKERS (set by
// scripts/bench.sh, which starts the services as `make test` does).
package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/auditlog/auditlog/audit/vlog"

	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/keyfile"
)

// result is one benchmark's figure next to its ceiling and target.
type result struct {
	Name    string
	Method  string
	Unit    string
	Samples []float64 // the figure, one per run
	Ceiling []float64 // the ceiling, one per run, measured alternately
	Target  string
	// Ratio, when set, is the figure's median over the ceiling's median,
	// compared with MinRatio.
	MinRatio float64
	// MaxRatio, when set, is the largest acceptable ratio; Max the largest
	// acceptable median figure.
	MaxRatio float64
	Max      float64
	// Min, when set, is the smallest acceptable median figure.
	Min   float64
	Notes string
}

type env struct {
	esURL      string
	brokers    []string
	scale      float64
	runs       int
	esVersion  string
	kafka      string
	pids       map[string]int // processes whose CPU use is reported
	keyFile    string         // the signing key of the serve processes on Elasticsearch
	acceptFile string         // their acceptance key (benchAcceptKey)

	// The query benchmark's store, reused by the export benchmark.
	queryStore  *elasticsearch.Store
	queryTenant string
	queryN      int

	// capacityOut is where the tenancy simulation writes its capacity
	// table: docs/tenancy-capacity.md beside the repository's
	// BENCHMARKS.md, else next to the report (a smoke run's temporary one).
	capacityOut string
}

func main() {
	scale := flag.Float64("scale", 1, "data size multiplier (BENCH_SCALE); 0.02 is the CI smoke run")
	runs := flag.Int("runs", 3, "measured runs per benchmark (after one warm-up)")
	out := flag.String("out", "BENCHMARKS.md", "file to rewrite with the results")
	servicesDir := flag.String("services-dir", "", "run directory of scripts/services.sh (its pid files give the CPU use of Elasticsearch and Kafka)")
	only := flag.String("only", "", "comma-separated benchmarks to run (default all)")
	skip := flag.String("skip", "", "comma-separated benchmarks not to run (BENCH_SKIP; the CI smoke run leaves out the longest)")
	mergeInto := flag.Bool("merge", false, "with -only: replace only those benchmarks' rows and methods in the existing -out report of a full run")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of this process (the in-process indexer, API and loaders) to this file")
	memProfile := flag.String("memprofile", "", "write this process's allocation profile (alloc_space, alloc_objects) to this file at the end")
	flag.Parse()
	defer startProfiles(*cpuProfile, *memProfile)()
	e := &env{esURL: os.Getenv("AUDITLOG_TEST_ES_URL"), brokers: strings.Split(os.Getenv("AUDITLOG_TEST_KAFKA_BROKERS"), ","),
		scale: *scale, runs: *runs, kafka: os.Getenv("AUDITLOG_KAFKA_VERSION"), pids: map[string]int{"auditbench": 0},
		capacityOut: *out + ".tenancy-capacity.md"}
	if filepath.Base(*out) == "BENCHMARKS.md" {
		e.capacityOut = filepath.Join(filepath.Dir(*out), "docs", "tenancy-capacity.md")
	}
	if *servicesDir != "" {
		if pid := readPid(*servicesDir + "/es.pid"); pid > 0 {
			e.pids["elasticsearch"] = pid
		}
		if pid := readPid(*servicesDir + "/kafka.pid"); pid > 0 {
			e.pids["kafka"] = pid
		}
	}
	if e.esURL == "" || e.brokers[0] == "" {
		log.Fatal("AUDITLOG_TEST_ES_URL and AUDITLOG_TEST_KAFKA_BROKERS must be set: run `make bench`")
	}
	defer e.writeKeyFile()()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	all := []struct {
		name string
		run  func(context.Context, *env) ([]result, error)
	}{
		{"indexer", benchIndexer},
		{"query", benchQuery},
		{"export", benchExport},
		{"sqlite", benchSQLite}, {"sqlite-variants", benchSQLiteVariants},
		{"periodic", benchPeriodic}, {"log-sqlite", benchLogSQLite}, {"log-elasticsearch", benchLogElasticsearch},
		{"log-cosign", benchLogCosign}, {"acceptance", benchAcceptance}, {"log-verify", benchLogVerify}, {"load", benchLoad}, {"load-search", benchLoadSearch}, {"stream", benchStream},
		{"build", benchBuild},
		{"tenancy", benchTenancy},
		{"holds", benchHolds},
	}
	start := time.Now()
	results, done, failed := runBenchmarks(ctx, e, all, *only, *skip)
	report := render(e, results, time.Since(start))
	if *mergeInto {
		old, err := os.ReadFile(*out)
		if err != nil || *only == "" {
			log.Fatalf("-merge needs -only and an existing -out report: %v", err)
		}
		// Only the benchmarks that ran replace their rows; a failed one's
		// stay as the last run wrote them.
		if report, err = merge(string(old), e, results, time.Since(start), strings.Join(done, ",")); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Print(report)
	if err := os.WriteFile(*out, []byte(report), 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("wrote %s", *out)
	if len(failed) > 0 {
		log.Fatalf("benchmarks failed (their rows are not in the report, or kept from the last run): %s", strings.Join(failed, ", "))
	}
}

// benchmark is one benchmark of the report.
type benchmark = struct {
	name string
	run  func(context.Context, *env) ([]result, error)
}

// runBenchmarks runs those of all that only names (all when empty) and
// skip does not. A failed one is logged and named in failed, and the
// others' rows are kept: one benchmark's failure (a service, a harness
// bug) does not throw away an hour of runs.
func runBenchmarks(ctx context.Context, e *env, all []benchmark, only, skip string) (results []result, done, failed []string) {
	for _, b := range all {
		if only != "" && !strings.Contains(","+only+",", ","+b.name+",") || strings.Contains(","+skip+",", ","+b.name+",") {
			continue
		}
		log.Printf("benchmark %s (scale %g, %d runs)", b.name, e.scale, e.runs)
		rs, err := b.run(ctx, e)
		if err != nil {
			log.Printf("benchmark %s FAILED: %v", b.name, err)
			failed = append(failed, b.name)
			continue
		}
		results, done = append(results, rs...), append(done, b.name)
	}
	return results, done, failed
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func minMax(xs []float64) (float64, float64) {
	lo, hi := xs[0], xs[0]
	for _, x := range xs {
		lo, hi = min(lo, x), max(hi, x)
	}
	return lo, hi
}

func memTotal() string {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return "unknown"
	}
	var kb int64
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "MemTotal:") {
			fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(line, "MemTotal:")), "%d", &kb)
		}
	}
	return fmt.Sprintf("%.1f GiB", float64(kb)/(1<<20))
}

func render(e *env, results []result, took time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Benchmarks\n\n")
	fmt.Fprintf(&b, "Written by `make bench` (cmd/auditbench) on %s. Do not edit by hand.\n\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(&b, "| Machine | |\n|---|---|\n")
	fmt.Fprintf(&b, "| cores | %d |\n| memory | %s |\n| Go | %s |\n| Elasticsearch | %s |\n| Kafka | %s |\n| scale (BENCH_SCALE) | %g |\n| runs per figure | %d after one warm-up |\n| total time | %s |\n\n",
		runtime.NumCPU(), memTotal(), runtime.Version(), e.esVersion, e.kafka, e.scale, e.runs, took.Round(time.Second))
	b.WriteString("The machine is shared and noisy: every figure is the median of its runs with min and max, and each is measured side by side with its ceiling, alternating runs, so the ratio of the two medians is what compares. A figure that misses its target is reported as it is.\n\n")
	b.WriteString("## Summary\n\n| Benchmark | Median (min–max) | Ceiling median (min–max) | Ratio | Target | Met |\n|---|---|---|---|---|---|\n")
	for _, r := range results {
		f := "%.0f"
		if r.Unit == "ms" || r.Unit == "µs" {
			f = "%.1f"
		}
		lo, hi := minMax(r.Samples)
		ceil, ratio, met := "—", "—", "—"
		if len(r.Ceiling) > 0 {
			clo, chi := minMax(r.Ceiling)
			ceil = fmt.Sprintf(f+" ("+f+"–"+f+") %s", median(r.Ceiling), clo, chi, r.Unit)
			q := median(r.Samples) / median(r.Ceiling)
			ratio = fmt.Sprintf("%.0f%%", 100*q)
			if r.MinRatio > 0 {
				met = yesNo(q >= r.MinRatio)
			}
			if r.MaxRatio > 0 {
				ratio = fmt.Sprintf("%.2f×", q)
				met = yesNo(q <= r.MaxRatio)
			}
		}
		if r.Max > 0 {
			met = yesNo(median(r.Samples) <= r.Max)
		}
		if r.Min > 0 {
			met = yesNo(median(r.Samples) >= r.Min)
		}
		fmt.Fprintf(&b, "| %s | "+f+" ("+f+"–"+f+") %s | %s | %s | %s | %s |\n", r.Name, median(r.Samples), lo, hi, r.Unit, ceil, ratio, r.Target, met)
	}
	b.WriteString("\n## Method\n\n")
	for _, r := range results {
		fmt.Fprintf(&b, "### %s\n\n%s\n\n", r.Name, r.Method)
		fmt.Fprintf(&b, "Runs: %s %s", fmtList(r.Samples), r.Unit)
		if len(r.Ceiling) > 0 {
			fmt.Fprintf(&b, "; ceiling runs: %s %s", fmtList(r.Ceiling), r.Unit)
		}
		b.WriteString(".\n\n")
		if r.Notes != "" {
			b.WriteString(r.Notes + "\n\n")
		}
	}
	return b.String()
}

func yesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "**no**"
}

func fmtList(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf("%.1f", x)
	}
	return strings.Join(parts, ", ")
}

// startProfiles starts the CPU profile when cpu names a file; the function
// it returns stops it and writes the allocation profile when mem names one.
func startProfiles(cpu, mem string) func() {
	if cpu != "" {
		f, err := os.Create(cpu)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
	}
	return func() {
		if cpu != "" {
			pprof.StopCPUProfile()
		}
		if mem != "" {
			writeAllocs(mem)
		}
	}
}

// writeAllocs writes the allocation profile of the whole run to path.
func writeAllocs(path string) {
	f, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		log.Fatal(err)
	}
}

// writeKeyFile writes the signing key of the serve processes the
// benchmarks start on Elasticsearch (which refuse to start without one),
// and returns what removes it.
func (e *env) writeKeyFile() func() {
	dir, err := os.MkdirTemp("", "auditbench-key-")
	if err != nil {
		log.Fatal(err)
	}
	e.keyFile = filepath.Join(dir, "signing-key.pem")
	if _, priv, err := ed25519.GenerateKey(nil); err != nil || keyfile.Create(e.keyFile, priv) != nil {
		log.Fatalf("the benchmark's signing key: %v", err)
	}
	e.acceptFile = filepath.Join(dir, "accept-key")
	if _, _, _, err := keyfile.LoadOrCreateSecret(e.acceptFile, benchAcceptKey, vlog.AcceptKeySize); err != nil {
		log.Fatalf("the benchmark's acceptance key: %v", err)
	}
	return func() { os.RemoveAll(dir) }
}

// benchAcceptKey is the acceptance key of every store, sealer and
// process of a run (e.acceptFile holds it for the processes).
var benchAcceptKey = func() []byte {
	k := make([]byte, vlog.AcceptKeySize)
	_, _ = rand.Read(k)
	return k
}()

// benchAccept tags and checks with benchAcceptKey.
var benchAccept = func() *vlog.Acceptor {
	a, err := vlog.NewAcceptor(benchAcceptKey)
	if err != nil {
		panic(err)
	}
	return a
}()
