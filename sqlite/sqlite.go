// Package sqlite is the embedded event store: one SQLite database file
// holding the events, the free-text index and the tenant directory.
//
// Driver: modernc.org/sqlite, a pure-Go translation of SQLite. It needs no
// C compiler, so `make run` works on a machine with only Go, and it
// includes FTS5. The cost is speed (roughly half of the C library), which
// the embedded default can afford; the scale-out path is Elasticsearch.
//
// Writes go through one connection in WAL mode with synchronous=FULL: a
// batch is one transaction, and WriteEvents returns only after it is
// committed and fsynced, so an acknowledged event survives a crash of the
// process or the machine. Reads use a pool of read-only connections.
package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/auditlog/auditlog/audit/vlog"

	_ "modernc.org/sqlite" // the driver

	"github.com/auditlog/auditlog/audit"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Config is the SQLite section of the configuration.
type Config struct {
	// Path is the database file.
	Path string
	// DefaultPlan is given to a tenant first seen (default enterprise).
	DefaultPlan audit.Plan
	// Now is the clock; tests may fix it.
	Now func() time.Time
	// Accept tags every event this store writes at its acceptance
	// (vlog.Acceptor), before the database sees it; the sealer seals
	// only rows whose tag verifies. Nil writes rows without a tag, which
	// are never sealed: only a store that no sealer reads goes without.
	Accept *vlog.Acceptor
	// SkipRollup leaves the stats rollups unmaintained, so stats over
	// the store are wrong. Only the benchmark that measures what the
	// rollups cost the write rate sets it; no configuration reaches it.
	SkipRollup bool
	// PlainBodies writes each event's JSON as it is, not compressed
	// (body.go). Only the benchmark of ingest variants sets it, to show
	// what compression costs the write rate; no configuration reaches it.
	PlainBodies bool
	// Tune is run on the write connection after the migrations. Only the
	// benchmark of ingest variants (pragmas, dropped indexes) sets it; no
	// configuration reaches it.
	Tune []string
	// PageSize, when set and the file is new, is the page size it is
	// created with (SQLite fixes it with the first table). Only the same
	// benchmark sets it.
	PageSize int
	// CacheMiB is the write connection's page cache (default 64): it
	// keeps the B-trees of the indexes that every insert descends in
	// memory; `auditlog log verify`, which reads each page once, sets a
	// small one.
	CacheMiB int
	// ReadCacheMiB is each of the four read connections' page cache
	// (default 8). A query reads a few pages of an index in time order,
	// which the operating system's page cache holds as well; a larger
	// cache per reader multiplied the server's memory under load without
	// making the queries faster (BENCHMARKS.md, panel load).
	ReadCacheMiB int
}

// Store is the SQLite event store.
type Store struct {
	cfg Config
	w   *sql.DB // one connection: SQLite has one writer
	r   *sql.DB // readers

	writes chan *pendingWrite // to the group-commit writer
	quit   chan struct{}
	wg     sync.WaitGroup
}

// pendingWrite is one WriteEvents call waiting for the writer.
type pendingWrite struct {
	events  []audit.Event
	bodies  [][]byte // events[i]'s body as the table keeps it (packBody)
	results []audit.WriteResult
	err     error
	done    chan struct{}
}

// maxGroup bounds the events of one group commit.
const maxGroup = 4000

// Open opens (creating if needed) the database and applies the embedded
// migrations.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	if cfg.Path == "" {
		return nil, audit.Errorf(audit.EINVALID, "sqlite: no database path")
	}
	if cfg.DefaultPlan == "" {
		cfg.DefaultPlan = audit.PlanEnterprise
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.CacheMiB <= 0 {
		cfg.CacheMiB = 64
	}
	if cfg.ReadCacheMiB <= 0 {
		cfg.ReadCacheMiB = 8
	}
	dsn := func(extra string, cacheMiB int) string {
		q := url.Values{}
		// The writer's 64 MB page cache (CacheMiB) keeps the B-trees of the
		// indexes in memory (the default 2 MB makes inserts read pages back),
		// and a 64 MB WAL between checkpoints lets repeated writes to the
		// same index pages coalesce.
		for _, p := range []string{"journal_mode(WAL)", "synchronous(FULL)", "busy_timeout(10000)", "foreign_keys(ON)", fmt.Sprintf("cache_size(%d)", -1024*cacheMiB), "temp_store(MEMORY)", "wal_autocheckpoint(16384)"} {
			q.Add("_pragma", p)
		}
		return "file:" + cfg.Path + "?" + q.Encode() + extra
	}
	open := func(dsn string) (*sql.DB, error) { return sql.Open("sqlite", dsn) }
	if err := ownerOnly(cfg.Path); err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: %s", cfg.Path)
	}
	if err := createWithPageSize(ctx, cfg.Path, cfg.PageSize, open); err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: creating %s", cfg.Path)
	}
	w, err := open(dsn("&_txlock=immediate", cfg.CacheMiB))
	if err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: opening %s", cfg.Path)
	}
	w.SetMaxOpenConns(1)
	r, err := open(dsn("&mode=ro", cfg.ReadCacheMiB))
	if err != nil {
		w.Close()
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: opening %s", cfg.Path)
	}
	r.SetMaxOpenConns(4)
	s := &Store{cfg: cfg, w: w, r: r, writes: make(chan *pendingWrite), quit: make(chan struct{})}
	if err := s.migrate(ctx); err != nil {
		errors.Join(s.r.Close(), s.w.Close())
		return nil, s.readOnly(err)
	}
	for _, q := range cfg.Tune {
		if _, err := s.w.ExecContext(ctx, q); err != nil {
			errors.Join(s.r.Close(), s.w.Close())
			return nil, audit.Wrap(audit.EINVALID, err, "sqlite: %s", q)
		}
	}
	if err := s.checkWritable(ctx); err != nil {
		errors.Join(s.r.Close(), s.w.Close())
		return nil, err
	}
	s.wg.Add(1)
	go s.writer()
	return s, nil
}

// ownerOnly makes the database file its owner's alone (0600): it is
// created so when it does not exist (SQLite creates its WAL and shared
// memory files with the database's mode), and one that others may read
// (made by an earlier version, or copied in) is narrowed, with its WAL
// and shared memory files.
func ownerOnly(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		return f.Close()
	}
	if !errors.Is(err, fs.ErrExist) {
		return err
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if st, err := os.Stat(p); err == nil && st.Mode().Perm()&0o077 != 0 {
			if err := os.Chmod(p, st.Mode().Perm()&0o700); err != nil {
				return err
			}
		}
	}
	return nil
}

// createWithPageSize creates the database file with the page size when
// size is set and the file does not exist yet.
func createWithPageSize(ctx context.Context, path string, size int, open func(string) (*sql.DB, error)) error {
	if size == 0 {
		return nil
	}
	if st, err := os.Stat(path); err == nil && st.Size() > 0 { // an empty file is ownerOnly's: new
		return nil
	}
	db, err := open("file:" + path)
	if err != nil {
		return err
	}
	defer db.Close()
	for _, q := range []string{"PRAGMA page_size=" + strconv.Itoa(size), "PRAGMA journal_mode=WAL", "CREATE TABLE x (a)", "DROP TABLE x"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// Close stops the writer, after the write in progress, and closes the
// database: it returns once no connection to the file is open, or an
// error saying how many still are after closeWait.
//
// database/sql's DB.Close does not wait for that: a connection its opener
// was still opening for a waiting reader finishes opening (and reads the
// file, which recreates the -wal and -shm files) after Close returned,
// then closes. A caller that removes the data directory after Close (a
// test's cleanup, an operator's script) must find nothing written after
// it; CI once saw "directory not empty" there.
func (s *Store) Close() error {
	close(s.quit)
	s.wg.Wait()
	err := errors.Join(s.r.Close(), s.w.Close())
	deadline := time.Now().Add(closeWait)
	for {
		open := s.r.Stats().OpenConnections + s.w.Stats().OpenConnections
		if open == 0 {
			return err
		}
		if time.Now().After(deadline) {
			return errors.Join(err, fmt.Errorf("sqlite: %d connections to %s still open %s after closing", open, s.cfg.Path, closeWait))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// closeWait bounds how long Close waits for connections being opened or
// still in use to close.
const closeWait = 10 * time.Second

// Ping checks the database answers (for /readyz).
func (s *Store) Ping(ctx context.Context) error {
	if err := s.r.PingContext(ctx); err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite unavailable")
	}
	return nil
}

// migrate applies, in order and once each, the embedded migrations.
func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.w.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL) STRICT`); err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: migrations table")
	}
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		var done int
		if err := s.w.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE name = ?`, name).Scan(&done); err != nil {
			return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: reading migrations")
		}
		if done > 0 {
			continue
		}
		body, _ := migrations.ReadFile(name)
		tx, err := s.w.BeginTx(ctx, nil)
		if err != nil {
			return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: migration %s", name)
		}
		if _, err := tx.ExecContext(ctx, string(body)); err != nil {
			tx.Rollback()
			return audit.Wrap(audit.EINTERNAL, err, "sqlite: migration %s", name)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)`, name, s.cfg.Now().UnixMilli()); err != nil {
			tx.Rollback()
			return audit.Wrap(audit.EINTERNAL, err, "sqlite: migration %s", name)
		}
		if err := tx.Commit(); err != nil {
			return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: migration %s", name)
		}
	}
	return nil
}

// WriteEvents implements audit.EventWriter: the batch is committed and
// fsynced before it returns. An id already stored in the event's tenant
// is a duplicate when the stored event is the same, a conflict when it
// differs (audit.Settle); another tenant's ids do not count. SQLite
// refuses nothing a valid event holds, so there are no rejections; a
// failed transaction is an EUNAVAILABLE error for the whole batch.
//
// Group commit: concurrent calls are written together by one writer, in
// one transaction and one fsync (SQLite has one writer anyway), and each
// call returns once that transaction is durable. When the caller gives up
// (ctx), its batch may still be written: ids make the retry harmless.
func (s *Store) WriteEvents(ctx context.Context, events []audit.Event) ([]audit.WriteResult, error) {
	if len(events) == 0 {
		return nil, nil
	}
	// Encoded and compressed here, in the caller's goroutine: the one
	// writer only inserts.
	bodies, err := s.packBodies(events)
	if err != nil {
		return nil, err
	}
	p := &pendingWrite{events: events, bodies: bodies, done: make(chan struct{})}
	select {
	case s.writes <- p:
	case <-ctx.Done():
		return nil, audit.Wrap(audit.EUNAVAILABLE, ctx.Err(), "sqlite: write cancelled")
	case <-s.quit:
		return nil, audit.Errorf(audit.EUNAVAILABLE, "sqlite: the store is closed")
	}
	select {
	case <-p.done:
		return p.results, p.err
	case <-ctx.Done():
		return nil, audit.Wrap(audit.EUNAVAILABLE, ctx.Err(), "sqlite: write cancelled")
	}
}

// writer takes a waiting call, adds every other call already waiting (up
// to maxGroup events), writes them in one transaction and answers each.
func (s *Store) writer() {
	defer s.wg.Done()
	for {
		var group []*pendingWrite
		select {
		case p := <-s.writes:
			group = append(group, p)
		case <-s.quit:
			return
		}
		n := len(group[0].events)
	more:
		for n < maxGroup {
			select {
			case p := <-s.writes:
				group = append(group, p)
				n += len(p.events)
			default:
				break more
			}
		}
		all, bodies := group[0].events, group[0].bodies
		if len(group) > 1 {
			all, bodies = make([]audit.Event, 0, n), make([][]byte, 0, n)
			for _, p := range group {
				all, bodies = append(all, p.events...), append(bodies, p.bodies...)
			}
		}
		results, err := s.writeBatch(context.Background(), all, bodies)
		err = s.readOnly(err)
		for _, p := range group {
			if err != nil {
				p.err = err
			} else {
				p.results, results = results[:len(p.events):len(p.events)], results[len(p.events):]
			}
			close(p.done)
		}
	}
}

// writeBatch writes events, of bodies, in one transaction.
func (s *Store) writeBatch(ctx context.Context, events []audit.Event, bodies [][]byte) ([]audit.WriteResult, error) {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: begin")
	}
	defer tx.Rollback()
	results, err := s.insertEvents(ctx, tx, events, bodies)
	if err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: commit")
	}
	return results, nil
}

// packBodies is each event's body as the events table keeps it: its
// stored JSON (the API's, an empty diff left out) without what the row's
// columns hold (elide), compressed.
func (s *Store) packBodies(events []audit.Event) ([][]byte, error) {
	bodies := make([][]byte, len(events))
	var js []byte
	for i := range events {
		var err error
		short := elide(events[i])
		if js, err = short.AppendStoredJSON(js[:0]); err != nil {
			return nil, audit.Wrap(audit.EINTERNAL, err, "encoding event %s", events[i].ID)
		}
		if s.cfg.PlainBodies {
			bodies[i] = bytes.Clone(js)
		} else {
			bodies[i] = packBody(nil, js)
		}
	}
	return bodies, nil
}

// insertEvents stores events in tx (bodies[i] is events[i]'s, from
// packBodies): each row, its text index row and its rollup counts; one
// already stored is settled.
func (s *Store) insertEvents(ctx context.Context, tx *sql.Tx, events []audit.Event, bodies [][]byte) ([]audit.WriteResult, error) {
	ins, err := tx.PrepareContext(ctx, `INSERT INTO events (`+strings.Join(indexColumns, ", ")+`, body, accept)
		VALUES (`+strings.Repeat("?, ", len(indexColumns))+`?, ?) ON CONFLICT (tenant_no, id) DO NOTHING`)
	if err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: prepare")
	}
	fts, err := tx.PrepareContext(ctx, `INSERT INTO events_fts (rowid, search, reason) VALUES (?, ?, ?)`)
	if err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: prepare")
	}
	tenants := map[string]int64{} // their numbers (tenantNumber)
	counts := rollup{}
	results := make([]audit.WriteResult, len(events))
	for i := range events {
		e := &events[i]
		no, ok := tenants[e.TenantID]
		if !ok {
			if _, err := tx.ExecContext(ctx, `INSERT INTO tenants (tenant_id, plan, created_at, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`,
				e.TenantID, s.cfg.DefaultPlan, s.cfg.Now().UnixMilli(), s.cfg.Now().UnixMilli()); err != nil {
				return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: tenant")
			}
			if no, err = tenantNumber(ctx, tx, e.TenantID); err != nil {
				return nil, err
			}
			tenants[e.TenantID] = no
		}
		var tag []byte // nil: no acceptor, the row is never sealed
		if s.cfg.Accept != nil {
			tag = s.cfg.Accept.TagEvent(e)
		}
		res, err := ins.ExecContext(ctx, append(indexValues(e, no), bodies[i], tag)...)
		if err != nil {
			return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: insert")
		}
		if n, _ := res.RowsAffected(); n == 0 {
			if results[i], err = settle(ctx, tx, e, no); err != nil {
				return nil, err
			}
			continue
		}
		seq, _ := res.LastInsertId()
		if _, err := fts.ExecContext(ctx, seq, searchText(e, no), reasonText(e, no)); err != nil {
			return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: text index")
		}
		if !s.cfg.SkipRollup {
			counts.add(e)
		}
		results[i] = audit.WriteResult{Status: audit.WriteCreated}
	}
	if err := counts.flush(ctx, tx); err != nil {
		return nil, err
	}
	return results, nil
}

// settle compares e with the event of the same tenant and id already
// stored (possibly earlier in the same transaction).
func settle(ctx context.Context, tx *sql.Tx, e *audit.Event, no int64) (audit.WriteResult, error) {
	var k keyedRow
	if err := tx.QueryRowContext(ctx, `SELECT `+keyedBody+` FROM events WHERE tenant_no = ? AND id = ?`, no, idKey(e.ID)).Scan(k.dest()...); err != nil {
		return audit.WriteResult{}, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: reading the stored event %s", e.ID)
	}
	stored := k.decode(e.TenantID)
	if stored.Err != nil {
		return audit.WriteResult{}, audit.Wrap(audit.EINTERNAL, stored.Err, "sqlite: decoding the stored event %s", e.ID)
	}
	return audit.Settle(e, &stored.Event), nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Plan implements audit.TenantDirectory.
func (s *Store) Plan(ctx context.Context, tenantID string) (audit.Plan, error) {
	var p string
	err := s.r.QueryRowContext(ctx, `SELECT plan FROM tenants WHERE tenant_id = ?`, tenantID).Scan(&p)
	if errors.Is(err, sql.ErrNoRows) {
		return "", audit.Errorf(audit.ENOTFOUND, "tenant %s is not in the directory", tenantID)
	}
	if err != nil {
		return "", audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: tenant")
	}
	return audit.Plan(p), nil
}

// EnsureTenant implements audit.TenantDirectory.
func (s *Store) EnsureTenant(ctx context.Context, tenantID string, def audit.Plan) (audit.Plan, error) {
	now := s.cfg.Now().UnixMilli()
	if _, err := s.w.ExecContext(ctx, `INSERT INTO tenants (tenant_id, plan, created_at, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`,
		tenantID, def, now, now); err != nil {
		return "", audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: tenant")
	}
	return s.Plan(ctx, tenantID)
}

// SetPlan implements audit.TenantDirectory. Retention is enforced by
// Purge, which reads the plan at each pass, so a change applies to the
// data already stored.
func (s *Store) SetPlan(ctx context.Context, tenantID string, plan audit.Plan) error {
	if err := audit.CheckPlanChange(tenantID, plan); err != nil {
		return err
	}
	now := s.cfg.Now().UnixMilli()
	_, err := s.w.ExecContext(ctx, `INSERT INTO tenants (tenant_id, plan, created_at, updated_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (tenant_id) DO UPDATE SET plan = excluded.plan, updated_at = excluded.updated_at`, tenantID, plan, now, now)
	if err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: set plan")
	}
	return nil
}

// Tenants implements audit.TenantDirectory.
func (s *Store) Tenants(ctx context.Context, after string, limit int) ([]audit.Tenant, error) {
	if err := audit.CheckTenantPage(limit); err != nil {
		return nil, err
	}
	rows, err := s.r.QueryContext(ctx, `SELECT tenant_id, plan, updated_at FROM tenants WHERE tenant_id > ? ORDER BY tenant_id LIMIT ?`,
		after, limit)
	if err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: tenants")
	}
	defer rows.Close()
	var out []audit.Tenant
	for rows.Next() {
		var t audit.Tenant
		var updated int64
		if err := rows.Scan(&t.ID, &t.Plan, &updated); err != nil {
			return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: tenants")
		}
		t.UpdatedAt = time.UnixMilli(updated).UTC()
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: tenants")
	}
	return out, nil
}
