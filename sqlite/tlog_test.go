package sqlite_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"github.com/auditlog/auditlog/audit/retention"
	"github.com/auditlog/auditlog/audit/vlog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/internal/testkit/storetest"
	"github.com/auditlog/auditlog/seal"
	"github.com/auditlog/auditlog/sqlite"
)

// sealedStore is a store in a temporary file holding n generated events
// of one tenant, sealed in one round: the store, its path, the events and
// the checkpoint verifier.
func sealedStore(t *testing.T, seed uint64, n int) (*sqlite.Store, string, []audit.Event, vlog.Keys) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "audit.db")
	s, err := sqlite.Open(ctx, sqlite.Config{Accept: accepttest.Acceptor, Path: path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	g := gen.New(gen.Config{Seed: seed, Tenants: 1, WithIDs: true}, n)
	var events []audit.Event
	for i := 0; i < n; i++ {
		events = append(events, g.Next())
	}
	if _, err := s.WriteEvents(ctx, events); err != nil {
		t.Fatal(err)
	}
	sealer, v := storetest.NewSealer(t, s, 0)
	storetest.SealAll(t, sealer)
	return s, path, events, v
}

// TestEditsBehindTheServiceBreakTheProofs: an event edited with SQL
// straight in the file no longer matches its leaf (its proof fails), and
// a deleted one leaves its leaf without an event; the others still prove.
func TestEditsBehindTheServiceBreakTheProofs(t *testing.T) {
	ctx := context.Background()
	s, path, events, _ := sealedStore(t, 12, 50)
	tenant := events[0].TenantID
	proves := func(id string) bool {
		p, err := seal.ProveInclusion(ctx, s, tenant, id, 0)
		if err != nil {
			t.Fatal(err)
		}
		e, err := s.GetEvent(ctx, tenant, id)
		return err == nil && tlog.CheckRecord(p.Proof, p.Size, p.Root, p.Leaf.Index, vlog.LeafHash(e)) == nil
	}
	for _, e := range events[:3] {
		if !proves(e.ID) {
			t.Fatalf("%s does not prove before any edit", e.ID)
		}
	}
	db := openFile(t, path)
	if _, err := db.Exec(`UPDATE events SET body = CAST(json_set(auditlog_event_json(body), '$.actor.email', 'someone.else@x.example') AS BLOB) WHERE id = auditlog_id_key(?)`, events[1].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`DELETE FROM events WHERE id = auditlog_id_key(?)`, events[2].ID); err != nil {
		t.Fatal(err)
	}
	if proves(events[1].ID) || proves(events[2].ID) || !proves(events[0].ID) {
		t.Fatalf("after an edit and a deletion: edited %v, deleted %v, untouched %v", proves(events[1].ID), proves(events[2].ID), proves(events[0].ID))
	}
	if l, err := s.LeafOf(ctx, tenant, events[2].ID); err != nil || l.EventID != events[2].ID {
		t.Fatalf("the deleted event's leaf: %+v %v", l, err)
	}
}

// TestVerifyNamesWhatChangedBehindTheService: seal.Verify (auditlog log
// verify) names an edited, a back-dated and a deleted event, and a row
// inserted straight into the file (unaccepted: the store's verifier holds
// the acceptance key, and the row has no tag); an intact log has no
// finding.
func TestVerifyNamesWhatChangedBehindTheService(t *testing.T) {
	ctx := context.Background()
	s, path, events, v := sealedStore(t, 13, 40)
	tenant := events[0].TenantID
	rep, err := seal.Verify(ctx, s, s, tenant, v)
	if err != nil || len(rep.Findings) != 0 || rep.Events != 40 || rep.Checkpoint.Size != 40 {
		t.Fatalf("intact: %+v %v", rep, err)
	}
	db := openFile(t, path)
	for _, stmt := range []string{
		`UPDATE events SET body = CAST(json_set(auditlog_event_json(body), '$.actor.email', 'x@x.example') AS BLOB) WHERE id = auditlog_id_key('` + events[3].ID + `')`,
		`UPDATE events SET body = CAST(json_set(auditlog_event_json(body), '$.timestamp', '2020-01-01T00:00:00.000Z') AS BLOB), ts = 1577836800000 WHERE id = auditlog_id_key('` + events[5].ID + `')`,
		`DELETE FROM events WHERE id = auditlog_id_key('` + events[7].ID + `')`,
		`INSERT INTO events (id, tenant_no, ts, actor_id, actor_email_lc, action, resource_type, resource_id, cross_tenant, category, outcome, body, actor_role, actor_ip_key, request_id)
		 SELECT auditlog_id_key('evt_audit_00000000-0000-7000-8000-000000000001'), tenant_no, ts, actor_id, actor_email_lc, action, resource_type, resource_id, cross_tenant, category, outcome,
		 CAST(json_set(auditlog_event_json(body), '$.id', 'evt_audit_00000000-0000-7000-8000-000000000001') AS BLOB), actor_role, actor_ip_key, request_id FROM events WHERE id = auditlog_id_key('` + events[9].ID + `')`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	rep, err = seal.Verify(ctx, s, s, tenant, v)
	if err != nil {
		t.Fatal(err)
	}
	// The back-dated, the deleted and the inserted rows also move the
	// statistics' hourly counts: those are named too.
	if n := dropRollupFindings(&rep); n == 0 {
		t.Fatal("the rollups of the moved, deleted and inserted rows are not named")
	}
	if n := dropFindings(&rep, "text index row "); n != 1 {
		t.Fatalf("the deleted event's text index row is named %d times, want once", n)
	}
	storetest.WantFindings(t, rep, map[string]string{events[3].ID: "altered", events[5].ID: "altered", events[7].ID: "missing",
		"evt_audit_00000000-0000-7000-8000-000000000001": "unaccepted"}, s, s, tenant)
}

// dropRollupFindings takes the findings about rollups out of rep and
// returns how many there were.
func dropRollupFindings(rep *seal.Report) int { return dropFindings(rep, "rollup ") }

// dropFindings takes the findings about what starts with prefix out of
// rep and returns how many there were.
func dropFindings(rep *seal.Report, prefix string) int {
	kept := rep.Findings[:0]
	for _, f := range rep.Findings {
		if !strings.HasPrefix(f.EventID, prefix) {
			kept = append(kept, f)
		}
	}
	n := len(rep.Findings) - len(kept)
	rep.Findings = kept
	return n
}

// TestRetentionIsRecordedInTheLog: retention deletes a Starter tenant's
// events older than 30 days and, in the same transaction, writes a
// retention record into the tenant's log naming the leaves that held
// them. Once it is sealed, the remaining events still prove their
// inclusion, and log verify counts the deleted ones as expired, not
// missing. An event deleted behind the service is still named missing,
// and a retention record forged in the file (unsealed) excuses nothing.
func TestRetentionIsRecordedInTheLog(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	path := filepath.Join(t.TempDir(), "audit.db")
	s, err := sqlite.Open(ctx, sqlite.Config{Accept: accepttest.Acceptor, Path: path, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	g := gen.New(gen.Config{Seed: 9, Tenants: 1, WithIDs: true, Start: now.AddDate(0, 0, -60), End: now.Add(-time.Hour)}, 300)
	var events []audit.Event
	old := map[string]bool{}
	for i := 0; i < 300; i++ {
		e := g.Next()
		events = append(events, e)
		old[e.ID] = e.Timestamp.Before(now.AddDate(0, 0, -30))
	}
	tenant := events[0].TenantID
	// The tenant moved to Starter an hour ago, as its log records.
	if _, err := s.WriteEvents(ctx, append([]audit.Event{retention.PlanChangeRecord(tenant, audit.PlanEnterprise, audit.PlanStarter, now.Add(-time.Hour))}, events...)); err != nil {
		t.Fatal(err)
	}
	sealer, v := storetest.NewSealer(t, s, 0)
	storetest.SealAll(t, sealer)
	pass, err := s.Purge(ctx)
	if err != nil || len(pass.Kept) != 0 {
		t.Fatal(pass, err)
	}
	deleted := pass.Deleted
	var wantDeleted int64
	for _, o := range old {
		if o {
			wantDeleted++
		}
	}
	if deleted != wantDeleted || deleted == 0 {
		t.Fatalf("purged %d, want the %d older than 30 days", deleted, wantDeleted)
	}
	res, err := s.SearchEvents(ctx, audit.Query{Filter: audit.Filter{TenantID: tenant, ResourceTypes: []string{audit.ResourceLogRetention}}, Sort: audit.DefaultSort, PageSize: 10, Page: 1})
	if err != nil || len(res.Events) != 1 {
		t.Fatalf("retention records: %+v %v", res.Events, err)
	}
	rec := res.Events[0]
	if rec.Actor != audit.SystemActor || rec.Action != audit.ActionDelete || !strings.Contains(rec.Reason, "starter") {
		t.Fatalf("the record: %+v", rec)
	}
	storetest.SealAll(t, sealer)
	rep, err := seal.Verify(ctx, s, s, tenant, v)
	if err != nil || len(rep.Findings) != 0 || rep.Expired != deleted || rep.Events != 300-deleted+2 {
		t.Fatalf("after retention: %+v %v (want %d expired)", rep, err, deleted)
	}
	for _, e := range events {
		if old[e.ID] {
			continue
		}
		p, err := seal.ProveInclusion(ctx, s, tenant, e.ID, 0)
		if err != nil || tlog.CheckRecord(p.Proof, p.Size, p.Root, p.Leaf.Index, vlog.LeafHash(e)) != nil {
			t.Fatalf("%s no longer proves after retention: %v", e.ID, err)
		}
		break
	}
	// Behind the service: a recent event deleted, and a forged record
	// that claims its leaf.
	var victim audit.Event
	for _, e := range events {
		if !old[e.ID] {
			victim = e
		}
	}
	leaf, _ := s.LeafOf(ctx, tenant, victim.ID)
	db := openFile(t, path)
	forged := retention.Deletion{TenantID: tenant, Plan: audit.PlanStarter, Before: now, Deleted: 1, Leaves: []retention.LeafRange{{From: leaf.Index, To: leaf.Index + 1}}}.Records(now)[0]
	body, _ := json.Marshal(forged)
	for _, stmt := range []struct {
		q    string
		args []any
	}{
		{`DELETE FROM events WHERE id = auditlog_id_key(?)`, []any{victim.ID}},
		{`INSERT INTO events (id, tenant_no, ts, actor_id, actor_email_lc, action, resource_type, resource_id, cross_tenant, category, outcome, body, actor_role, actor_ip_key, request_id)
		  VALUES (auditlog_id_key(?), (SELECT no FROM tenant_numbers WHERE tenant_id = ?), ?, auditlog_uuid_key(?), ?, 'delete', ?, auditlog_uuid_key(?), 0, 'configuration', 'success', ?, 'system', x'', '')`,
			[]any{forged.ID, tenant, now.UnixMilli(), forged.Actor.ID, forged.Actor.Email, audit.ResourceLogRetention, tenant, body}},
	} {
		if _, err := db.Exec(stmt.q, stmt.args...); err != nil {
			t.Fatalf("%s: %v", stmt.q, err)
		}
	}
	rep, err = seal.Verify(ctx, s, s, tenant, v)
	if err != nil || rep.Expired != deleted {
		t.Fatalf("behind the service: %+v %v (want %d expired)", rep, err, deleted)
	}
	if n := dropRollupFindings(&rep); n == 0 {
		t.Fatal("the rollups of the deleted and the forged rows are not named")
	}
	if n := dropFindings(&rep, "text index row "); n != 1 {
		t.Fatalf("the deleted event's text index row is named %d times, want once", n)
	}
	storetest.WantFindings(t, rep, map[string]string{victim.ID: "missing", forged.ID: "unaccepted"}, s, s, tenant)
}

// roundInBetween is the store with a sealing round committed right after
// each LeafOf: the race of a proof asked while the log moves on.
type roundInBetween struct {
	*sqlite.Store
	t      *testing.T
	sealer *seal.Sealer
}

func (r roundInBetween) LeafOf(ctx context.Context, tenant, id string) (vlog.Leaf, error) {
	l, err := r.Store.LeafOf(ctx, tenant, id)
	storetest.SealAll(r.t, r.sealer)
	return l, err
}

// TestAProofComesWithItsOwnCheckpoint: with a round committed while a
// proof is made, the proof and the checkpoint it is given with are of
// the same tree (the API answers both; a checkpoint read again was once a
// later round's, and the browser refused the proof).
func TestAProofComesWithItsOwnCheckpoint(t *testing.T) {
	ctx := context.Background()
	s, _, events, _ := sealedStore(t, 15, 30)
	g := gen.New(gen.Config{Seed: 16, Tenants: 1, FirstTenantID: events[0].TenantID, WithIDs: true}, 10)
	var more []audit.Event
	for range 10 {
		more = append(more, g.Next())
	}
	if _, err := s.WriteEvents(ctx, more); err != nil {
		t.Fatal(err)
	}
	sealer, _ := storetest.NewSealer(t, s, 0)
	in, err := seal.ProveInclusion(ctx, roundInBetween{s, t, sealer}, events[0].TenantID, events[2].ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := vlog.ParseCheckpoint(strings.SplitN(in.State.Checkpoint, "\n\n", 2)[0] + "\n")
	if err != nil || cp.Size != in.Size || cp.Root != in.Root || in.Size != 40 {
		t.Fatalf("a proof of the tree of %d (root %s) given with the checkpoint %+v %v", in.Size, in.Root, cp, err)
	}
	if err := tlog.CheckRecord(in.Proof, cp.Size, cp.Root, in.Leaf.Index, vlog.LeafHash(events[2])); err != nil {
		t.Fatal(err)
	}
}

// TestVerifyNamesReorderedLeaves: leaves moved behind the service (two
// rows of the leaf table swapped) make a tree without the signed root,
// and log verify names both by the signed tree's tiles, and a leaf whose
// hash was rewritten (to one the signed tree has nowhere); when the tree's
// stored hashes were rewritten as well, the tiles no longer verify
// against the signed root and it says that no leaf can be named.
func TestVerifyNamesReorderedLeaves(t *testing.T) {
	ctx := context.Background()
	s, path, events, v := sealedStore(t, 14, 40)
	tenant := events[0].TenantID
	db := openFile(t, path)
	leafOf := func(i int) (string, []byte) {
		var id string
		var h []byte
		if err := db.QueryRow(`SELECT auditlog_id_of(event_id), coalesce(hash, auditlog_entry_hash(auditlog_id_of(event_id), digest)) FROM tlog_leaves
			WHERE tenant_no = (SELECT no FROM tenant_numbers WHERE tenant_id = ?) AND leaf = ?`, tenant, i).Scan(&id, &h); err != nil {
			t.Fatal(err)
		}
		return id, h
	}
	id3, h3 := leafOf(3)
	id8, h8 := leafOf(8)
	for _, stmt := range []struct {
		q    string
		args []any
	}{
		{`UPDATE tlog_leaves SET event_id = 'x', hash = ? WHERE tenant_no = (SELECT no FROM tenant_numbers WHERE tenant_id = ?) AND leaf = 3`, []any{h8, tenant}},
		{`UPDATE tlog_leaves SET event_id = auditlog_id_key(?), hash = ? WHERE tenant_no = (SELECT no FROM tenant_numbers WHERE tenant_id = ?) AND leaf = 8`, []any{id3, h3, tenant}},
		{`UPDATE tlog_leaves SET event_id = auditlog_id_key(?) WHERE tenant_no = (SELECT no FROM tenant_numbers WHERE tenant_id = ?) AND leaf = 3`, []any{id8, tenant}},
	} {
		if _, err := db.Exec(stmt.q, stmt.args...); err != nil {
			t.Fatalf("%s: %v", stmt.q, err)
		}
	}
	rep, err := seal.Verify(ctx, s, s, tenant, v)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, f := range rep.Findings {
		kinds[f.Kind+" "+f.EventID] = f.Detail
	}
	if len(rep.Findings) != 3 || kinds["tree "] == "" || kinds["reordered "+id8] == "" || kinds["reordered "+id3] == "" {
		t.Fatalf("after swapping leaves 3 and 8: %v", rep.Findings)
	}
	// A leaf's hash rewritten (to a hash the signed tree has nowhere):
	// rewritten, and its event no longer matches it.
	id20, _ := leafOf(20)
	if _, err := db.Exec(`UPDATE tlog_leaves SET hash = randomblob(32) WHERE tenant_no = (SELECT no FROM tenant_numbers WHERE tenant_id = ?) AND leaf = 20`, tenant); err != nil {
		t.Fatal(err)
	}
	rep, err = seal.Verify(ctx, s, s, tenant, v)
	kinds = map[string]string{}
	for _, f := range rep.Findings {
		kinds[f.Kind+" "+f.EventID] = f.Detail
	}
	if err != nil || len(rep.Findings) != 5 || kinds["rewritten "+id20] == "" || kinds["altered "+id20] == "" {
		t.Fatalf("after rewriting leaf 20: %v %v", rep.Findings, err)
	}
	// The tree's stored hashes rewritten too: nothing to name by.
	if _, err := db.Exec(`UPDATE tlog_hash_blocks SET hashes = unhex(hex(zeroblob(32)) || substr(hex(hashes), 65)) WHERE tenant_id = ? AND block = 0`, tenant); err != nil {
		t.Fatal(err)
	}
	rep, err = seal.Verify(ctx, s, s, tenant, v)
	named := ""
	for _, f := range rep.Findings {
		named += f.Kind + ": " + f.Detail + "\n"
	}
	if err != nil || strings.Contains(named, "reordered") || !strings.Contains(named, "cannot be named") {
		t.Fatalf("with the stored hashes rewritten: %v %v", rep.Findings, err)
	}
}

// TestVerifyNamesMalformedRows: every stored byte is the verifier's input.
// Rows edited into invalid JSON, a raw value that is not JSON
// ("after": {""}, which once made log verify panic), a number where a
// string belongs, an empty body, an array, the body of another event,
// an event of another tenant, a body of no known encoding and a
// compressed frame cut short are each named malformed at their leaf,
// and every other event is still checked.
func TestVerifyNamesMalformedRows(t *testing.T) {
	ctx := context.Background()
	s, path, events, v := sealedStore(t, 14, 40)
	tenant := events[0].TenantID
	db := openFile(t, path)
	set := func(i int, body any) {
		t.Helper()
		if _, err := db.Exec(`UPDATE events SET body = ? WHERE id = auditlog_id_key(?)`, body, events[i].ID); err != nil {
			t.Fatal(err)
		}
	}
	set(2, []byte(`{"id":"`+events[2].ID+`","timestamp":`)) // cut short
	set(4, []byte(strings.Replace(string(mustBody(t, db, events[4].ID)), `"action":`, `"after":{""},"action":`, 1)))
	if _, err := db.Exec(`UPDATE events SET body = CAST(json_set(auditlog_event_json(body), '$.actor.email', 5) AS BLOB) WHERE id = auditlog_id_key(?)`, events[6].ID); err != nil {
		t.Fatal(err)
	}
	set(8, []byte{})
	set(10, []byte(`["not","an","event"]`))
	set(12, mustBody(t, db, events[13].ID))
	if _, err := db.Exec(`UPDATE events SET body = CAST(json_set(auditlog_event_json(body), '$.tenantId', '00000000-0000-4000-8000-000000000009') AS BLOB) WHERE id = auditlog_id_key(?)`, events[14].ID); err != nil {
		t.Fatal(err)
	}
	// Bodies as the table keeps them compressed (body.go): of no known
	// encoding, and a frame cut short.
	set(16, []byte{0x7f, '{', '}'})
	set(18, []byte{0x01, 0x28, 0xb5})
	rep, err := seal.Verify(ctx, s, s, tenant, v)
	if err != nil {
		t.Fatalf("the verifier stopped: %v", err)
	}
	want := map[string]string{}
	for _, i := range []int{2, 4, 6, 8, 10, 14, 16, 18} {
		want[events[i].ID] = "malformed"
	}
	// A body leaves out its event's id, which the row's column holds
	// (0021): another event's body under this row reads as this event
	// altered, counted in the hour and the kind of the other event (the
	// rollups' findings).
	want[events[12].ID] = "altered"
	if dropRollupFindings(&rep) == 0 {
		t.Fatal("the rollups of the altered row are not named")
	}
	storetest.WantFindings(t, rep, want, s, s, tenant)
	if rep.Events != 40-8 {
		t.Fatalf("%d events checked, want the other 32 (the altered one with them)", rep.Events)
	}
	for _, f := range rep.Findings {
		if f.Index < 0 || f.Detail == "" {
			t.Fatalf("a malformed row is named at its leaf, with the reason: %v", f)
		}
	}
}

func mustBody(t *testing.T, db *sql.DB, id string) []byte {
	t.Helper()
	var b []byte
	if err := db.QueryRow(`SELECT auditlog_event_json(body) FROM events WHERE id = auditlog_id_key(?)`, id).Scan(&b); err != nil {
		t.Fatal(err)
	}
	return b
}

// TestVerifyNamesMisindexedRows: columns edited behind the service with
// the body untouched (the action and the e-mail a filter reads; the
// resource type and the time a sort reads) hide an event from a query
// while its proof holds: log verify names each such row misindexed, with
// the columns, and the rows stay counted as intact events.
func TestVerifyNamesMisindexedRows(t *testing.T) {
	ctx := context.Background()
	s, path, events, v := sealedStore(t, 16, 40)
	tenant := events[0].TenantID
	db := openFile(t, path)
	for _, stmt := range []string{
		`UPDATE events SET action = 'access', actor_email_lc = 'nobody@x.example' WHERE id = auditlog_id_key('` + events[3].ID + `')`,
		`UPDATE events SET resource_type = 'queue', ts = ts + 1 WHERE id = auditlog_id_key('` + events[5].ID + `')`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := seal.Verify(ctx, s, s, tenant, v)
	if err != nil {
		t.Fatal(err)
	}
	storetest.WantFindings(t, rep, map[string]string{events[3].ID: "misindexed", events[5].ID: "misindexed"}, s, s, tenant)
	for _, f := range rep.Findings {
		want := "actor_email_lc, action"
		if f.EventID == events[5].ID {
			want = "ts, resource_type"
		}
		if !strings.HasSuffix(f.Detail, want) || f.Index < 0 {
			t.Fatalf("%v: want the columns %s named at the leaf", f, want)
		}
	}
	if rep.Events != 40 {
		t.Fatalf("%d events checked, want 40", rep.Events)
	}
	// The hourly counts the statistics read, edited to hide an hour's
	// deletions and a user's activity: each edited row is named.
	for _, stmt := range []string{
		`UPDATE event_rollup SET n = n + 5 WHERE tenant_id = '` + tenant + `' AND hour = (SELECT min(hour) FROM event_rollup WHERE tenant_id = '` + tenant + `')`,
		`DELETE FROM event_rollup_actor WHERE tenant_id = '` + tenant + `' AND actor_email_lc = '` + strings.ToLower(events[9].Actor.Email) + `'`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	rep, err = seal.Verify(ctx, s, s, tenant, v)
	if err != nil {
		t.Fatal(err)
	}
	var rollups []string
	for _, f := range rep.Findings {
		if strings.HasPrefix(f.EventID, "rollup ") {
			if f.Kind != "misindexed" || !strings.Contains(f.Detail, "the stored events make") {
				t.Fatalf("%v", f)
			}
			rollups = append(rollups, f.EventID)
		}
	}
	if len(rollups) < 2 || !slices.ContainsFunc(rollups, func(w string) bool { return strings.Contains(w, "actor "+strings.ToLower(events[9].Actor.Email)) }) {
		t.Fatalf("the edited rollups are not all named: %v", rep.Findings)
	}
}

// openFile opens the store's file behind the service, closed at the
// test's end.
func openFile(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestVerifyNamesEditedTextIndexRows: the full-text index is contentless,
// so an insider edits it directly: one event's row taken out (a free-text
// search no longer finds it), another's replaced by other terms (a search
// for them finds it). log verify names both misindexed at their leaves,
// "text index", and nothing else; the intact index raises nothing.
func TestVerifyNamesEditedTextIndexRows(t *testing.T) {
	ctx := context.Background()
	s, path, events, v := sealedStore(t, 17, 40)
	tenant := events[0].TenantID
	if rep, err := seal.Verify(ctx, s, s, tenant, v); err != nil || len(rep.Findings) != 0 {
		t.Fatalf("intact: %v %v", rep.Findings, err)
	}
	db := openFile(t, path)
	seqOf := func(id string) int64 {
		var seq int64
		if err := db.QueryRow(`SELECT seq FROM events WHERE id = auditlog_id_key(?)`, id).Scan(&seq); err != nil {
			t.Fatal(err)
		}
		return seq
	}
	hidden, planted := seqOf(events[4].ID), seqOf(events[7].ID)
	for _, stmt := range []string{
		fmt.Sprintf(`DELETE FROM events_fts WHERE rowid = %d`, hidden),
		fmt.Sprintf(`DELETE FROM events_fts WHERE rowid = %d`, planted),
		fmt.Sprintf(`INSERT INTO events_fts (rowid, search, reason) VALUES (%d, 'innocent@x.example', 'routine')`, planted),
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	rep, err := seal.Verify(ctx, s, s, tenant, v)
	if err != nil {
		t.Fatal(err)
	}
	storetest.WantFindings(t, rep, map[string]string{events[4].ID: "misindexed", events[7].ID: "misindexed"}, s, s, tenant)
	for _, f := range rep.Findings {
		if f.Index < 0 || !strings.Contains(f.Detail, "text index") {
			t.Fatalf("%v: want the text index named at the leaf", f)
		}
	}
}

// TestVerifyNamesATenantNumberChanged: the events, the log's leaves and
// the text index's words name their tenant by its number
// (tenant_numbers); an insider who changes the number (to point the
// tenant's reads at another's rows, or at none) leaves the tenant's rows
// under a number of no tenant: log verify names the tenant's log
// truncated (its signed leaves are gone from its number) and the rows of
// the number that names no tenant, in the events and in the leaves.
func TestVerifyNamesATenantNumberChanged(t *testing.T) {
	ctx := context.Background()
	s, path, events, v := sealedStore(t, 18, 30)
	tenant := events[0].TenantID
	db := openFile(t, path)
	var no int64
	if err := db.QueryRow(`SELECT no FROM tenant_numbers WHERE tenant_id = ?`, tenant).Scan(&no); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE tenant_numbers SET no = no + 1000 WHERE tenant_id = ?`, tenant); err != nil {
		t.Fatal(err)
	}
	rep, err := seal.Verify(ctx, s, s, tenant, v)
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, f := range rep.Findings {
		switch {
		case f.Kind == "truncated":
			named["truncated"] = true
		case strings.Contains(f.Detail, "names no tenant"):
			named[f.EventID] = true
		}
	}
	for _, want := range []string{"truncated", fmt.Sprintf("events of tenant number %d", no), fmt.Sprintf("tlog_leaves of tenant number %d", no)} {
		if !named[want] {
			t.Errorf("%q not named in %v", want, rep.Findings)
		}
	}
}
