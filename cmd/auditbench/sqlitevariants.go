package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/sqlite"
)

// ingestVariant is one change to the embedded store's write path, measured
// against the store as shipped on the same batches, with the decision
// taken on it.
type ingestVariant struct {
	name     string
	tune     []string // run on the write connection after the migrations
	pageSize int      // set on the new file before the migrations
	batch    int      // events per WriteEvents call (default sqliteBatch)
	plain    bool     // bodies written as JSON, not compressed
	verdict  string
}

var dropSortIndexes = []string{"DROP INDEX events_by_email", "DROP INDEX events_by_action", "DROP INDEX events_by_rtype"}

// ingestVariants are the levers issue 31 lists. Each verdict is the
// decision the measured rows support (BENCHMARKS.md has the figures).
var ingestVariants = []ingestVariant{
	{name: "synchronous=NORMAL", tune: []string{"PRAGMA synchronous=NORMAL"},
		verdict: "Rejected: in WAL mode NORMAL skips the fsync of each commit, so a power loss or an OS crash can lose the last acknowledged batches (a process crash loses nothing: the WAL is in the OS's page cache). A few percent is not worth acknowledging events a machine crash can take back."},
	{name: "mmap_size=256 MiB", tune: []string{"PRAGMA mmap_size=268435456"},
		verdict: "Rejected: no gain beyond the runs' spread: the 64 MB page cache already holds the pages a write reads, and writes still go through the WAL."},
	{name: "1 KiB pages", pageSize: 1024,
		verdict: "Rejected: a dirtied page costs a quarter of the bytes, but the deeper trees cost more CPU than that saves: the cost of a dirtied page is mostly per page (checksum, page cache, two writes), not per byte."},
	{name: "16 KiB pages", pageSize: 16384,
		verdict: "Rejected: no gain beyond the runs' spread; the indexes' random inserts dirty a whole (now larger) page each either way, and every read of a row or index entry then reads 16 KiB."},
	{name: "FTS5 automerge=16, crisismerge=64", tune: []string{
		"INSERT INTO events_fts (events_fts, rank) VALUES ('automerge', 16)", "INSERT INTO events_fts (events_fts, rank) VALUES ('crisismerge', 64)"},
		verdict: "Rejected: no gain beyond the runs' spread (FTS5 already buffers a transaction's terms and writes them as one segment), and fewer merges leave more segments for every MATCH to read."},
	{name: "batches of 2,000 events", batch: 2000,
		verdict: "The client's lever, kept as advice (docs/storage.md): a commit writes every page its batch dirtied, and four times the events dirty far fewer than four times the pages. The API accepts up to 1,000 events per request and group-commits concurrent requests."},
	{name: "without the three sort indexes (e-mail, action, resource type)", tune: dropSortIndexes,
		verdict: "Rejected: the spec's filtered, sorted page (action and resource type, sorted by e-mail, all time) and the sorts by action and resource type need them to stay within 50 ms at 1M events."},
	{name: "bodies as JSON, not compressed", plain: true,
		verdict: bodiesVerdict},
	{name: "without the free-text index", tune: []string{"DROP TABLE events_fts", "CREATE TABLE events_fts (search TEXT, reason TEXT)"},
		verdict: "Rejected: free text and reason: need it; reported for what it costs."},
	{name: "without any secondary index (the schema's ceiling)", tune: append(append([]string{}, dropSortIndexes...),
		"DROP INDEX events_by_time", "DROP INDEX events_by_actor", "DROP INDEX events_by_resource", "DROP INDEX events_by_ip", "DROP INDEX events_by_request"),
		verdict: "Not a candidate: every query would scan. It shows where the write cost is: eight indexes inserted at random positions, each dirtying a page per event that the commit writes to the WAL."},
}

// benchSQLiteVariants writes the same batches into a fresh store as
// shipped and into one per variant, in an order rotated per run.
func benchSQLiteVariants(ctx context.Context, e *env) ([]result, error) {
	dir, err := os.MkdirTemp("", "auditbench-variants")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	n := max(5000, int(100000*e.scale))
	events := derivedEvents(gen.New(gen.Config{Seed: 9, Tenants: 10, Skew: 1.1}, n), n)
	all := append([]ingestVariant{{name: "as shipped"}}, ingestVariants...)
	rates := make([][]float64, len(all))
	for run := 0; run <= e.runs; run++ {
		for k := range all {
			i := (k + run) % len(all)
			rate, err := variantRun(ctx, filepath.Join(dir, fmt.Sprintf("v%d-%d.db", run, i)), all[i], events)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", all[i].name, err)
			}
			log.Printf("  run %d: %s %.0f ev/s", run, all[i].name, rate)
			if run > 0 {
				rates[i] = append(rates[i], rate)
			}
		}
	}
	method := fmt.Sprintf("%d generated events (10 tenants) written with `Store.WriteEvents` in batches of %d, WAL and synchronous=FULL, on a fresh database: "+
		"as shipped, and with one variant each (pragmas run after the migrations, indexes dropped, or the page size set on the new file), "+
		"every store once per run in an order rotated between runs. One warm-up run, then %d runs; the ratio is the variant's median over the store as shipped.", n, sqliteBatch, e.runs)
	out := []result{ncrucesRecorded}
	for i, v := range all[1:] {
		out = append(out, result{Name: "SQLite ingest variant: " + v.name + " vs as shipped", Unit: "events/s",
			Samples: rates[i+1], Ceiling: rates[0], Target: "(variant)", Notes: v.verdict, Method: method})
	}
	return out, nil
}

// variantRun writes events into a new store with v applied and returns
// events per second.
func variantRun(ctx context.Context, path string, v ingestVariant, events []audit.Event) (float64, error) {
	cfg := sqlite.Config{Accept: benchAccept, Path: path, Tune: v.tune, PageSize: v.pageSize, PlainBodies: v.plain}
	batch := v.batch
	if batch == 0 {
		batch = sqliteBatch
	}
	return storeWriteRun(ctx, cfg, events, batch)
}

// ncrucesRecorded is the figure of the second SQLite engine
// (github.com/ncruces/go-sqlite3) as the full run of 2026-11-24 measured
// it, kept as recorded: the engine left the module (issue 40: the
// product's go.mod holds only what the product runs), so it is no longer
// re-measured.
var ncrucesRecorded = result{
	Name: "SQLite ingest variant: ncruces/go-sqlite3 instead of modernc.org/sqlite vs as shipped", Unit: "events/s",
	Samples: []float64{9126.0, 9592.6, 9459.9}, Ceiling: []float64{9009.2, 9471.6, 9616.7}, Target: "(variant)",
	Method: "Recorded, not re-measured: the full run of 2026-11-24 01:20 UTC wrote 100000 generated events (10 tenants) with `Store.WriteEvents` in batches of 500, WAL and synchronous=FULL, " +
		"on a fresh database opened with modernc.org/sqlite (as shipped) and with github.com/ncruces/go-sqlite3 (the same schema and statements), alternating, one warm-up then 3 runs. " +
		"The second engine then left the module (issue 40), so later runs repeat this figure as it was measured.",
	Notes: "Rejected: the same SQLite C code compiled another way (WebAssembly translated to Go) on the same schema and statements; no faster here, and a second engine to ship.",
}

// bodiesVerdict is the decision on compressed bodies (issue 58).
const bodiesVerdict = "Kept compressed, for the bytes: the event rows went from 1,034 to 587 bytes per event at 1M events (the log-sqlite rows, 2,702 → 2,255 bytes in all). " +
	"Compressing costs about 30 µs an event and reading one back about 7 µs more (the micro-benchmarks EncodeStoredBody and DecodeStoredBody, 2026-11-29), " +
	"done in the caller's goroutine, never in the one writer's; this row is what it costs the write rate."
