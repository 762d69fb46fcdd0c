package sqlite

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"github.com/auditlog/auditlog/audit/vlog"
	"strings"

	"github.com/auditlog/auditlog/audit"
)

// The text index (events_fts) is contentless: what it holds of an event
// cannot be read back as text, only as the terms it indexed, by
// fts5vocab's instance table (term, document, column, offset). The check
// indexes what the sealed bodies make (searchText, the reason: what the
// insert indexes) into a temporary table of the same tokenizer, and
// compares the two tables' instances of the tenant's rows, term by term,
// in the one order both vocabularies list them: a row whose indexed terms
// differ was edited in the index behind the service, to hide it from a
// free-text search or to make it match one.

// textCheck indexes the expected text of each row as the scan reads it.
type textCheck struct {
	no   int64 // the tenant's number (0: none, which no word holds)
	tx   *sql.Tx
	ins  *sql.Stmt
	docs docSet // the rows whose index rows are judged
}

// newTextCheck creates the temporary tables on tx's connection, for the
// rows of tenant: their expected words carry its mark as tenant_numbers
// gives it (a number changed or removed there leaves every row of the
// tenant named).
func newTextCheck(ctx context.Context, tx *sql.Tx, tenant string) (*textCheck, error) {
	var no int64
	if err := tx.QueryRowContext(ctx, `SELECT coalesce((SELECT no FROM tenant_numbers WHERE tenant_id = ?), 0)`, tenant).Scan(&no); err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: the text index check")
	}
	for _, q := range []string{
		`DROP TABLE IF EXISTS temp.fts_expected`, `DROP TABLE IF EXISTS temp.fts_expected_v`, `DROP TABLE IF EXISTS temp.fts_stored_v`,
		`CREATE VIRTUAL TABLE temp.fts_expected USING fts5(search, reason, content='', tokenize="` + ftsTokenizer + `")`,
		`INSERT INTO temp.fts_expected (fts_expected, rank) VALUES ('hashsize', 16777216)`,
		`INSERT INTO temp.fts_expected (fts_expected, rank) VALUES ('automerge', 0)`,
		`CREATE VIRTUAL TABLE temp.fts_expected_v USING fts5vocab(temp, fts_expected, instance)`,
		`CREATE VIRTUAL TABLE temp.fts_stored_v USING fts5vocab(main, events_fts, instance)`,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: the text index check")
		}
	}
	ins, err := tx.PrepareContext(ctx, `INSERT INTO temp.fts_expected (rowid, search, reason) VALUES (?, ?, ?)`)
	if err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: the text index check")
	}
	return &textCheck{no: no, tx: tx, ins: ins}, nil
}

// add indexes what the row at seq should have (nil: a row whose body is
// no event, whose index rows are not judged).
func (c *textCheck) add(ctx context.Context, seq int64, e *audit.Event) error {
	if e == nil {
		return nil // its index row is compared with nothing
	}
	c.docs.add(seq)
	if _, err := c.ins.ExecContext(ctx, seq, searchText(e, c.no), reasonText(e, c.no)); err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: the text index check")
	}
	return nil
}

// sameDigests reports whether both vocabularies list the same
// instances, the stored one's of the rows added only.
func (c *textCheck) sameDigests(ctx context.Context) (bool, error) {
	handle, release := c.docs.register()
	defer release()
	var want, have []byte
	if err := c.tx.QueryRowContext(ctx, `SELECT auditlog_fts_digest(0, term, doc, col, offset) FROM temp.fts_expected_v`).Scan(&want); err != nil {
		return false, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: the text index check")
	}
	if err := c.tx.QueryRowContext(ctx, `SELECT auditlog_fts_digest(?, term, doc, col, offset) FROM temp.fts_stored_v`, handle).Scan(&have); err != nil {
		return false, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: the text index check")
	}
	empty := sha256.Sum256(nil) // what no rows make (SQL NULL: no step)
	if len(want) == 0 {
		want = empty[:]
	}
	if len(have) == 0 {
		have = empty[:]
	}
	return bytes.Equal(want, have), nil
}

// instance is one row of an fts5vocab instance table (ok false: none).
type instance struct {
	term   string
	doc    int64
	col    string
	offset int64
	ok     bool
}

// findings compares the two vocabularies, by their digests
// (auditlog_fts_digest), and only when these differ row by row, to name
// each row whose terms differ, by its event id.
func (c *textCheck) findings(ctx context.Context) ([]vlog.IndexFinding, error) {
	defer c.ins.Close()
	if same, err := c.sameDigests(ctx); err != nil || same {
		return nil, err
	}
	want, err := c.tx.QueryContext(ctx, `SELECT term, doc, col, offset FROM temp.fts_expected_v`)
	if err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: the text index check")
	}
	defer want.Close()
	have, err := c.tx.QueryContext(ctx, `SELECT term, doc, col, offset FROM temp.fts_stored_v`)
	if err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: the text index check")
	}
	defer have.Close()
	next := func(r *sql.Rows, mine bool) instance {
		for r.Next() {
			var in instance
			if r.Scan(&in.term, &in.doc, &in.col, &in.offset) != nil {
				continue
			}
			if mine && !c.docs.has(in.doc) {
				continue // another tenant's row
			}
			in.ok = true
			return in
		}
		return instance{}
	}
	bad := map[int64]bool{}
	w, h := next(want, false), next(have, true)
	for w.ok || h.ok {
		switch cmp := compareInstances(w, h); {
		case cmp == 0:
			w, h = next(want, false), next(have, true)
		case cmp < 0:
			bad[w.doc] = true
			w = next(want, false)
		default:
			bad[h.doc] = true
			h = next(have, true)
		}
	}
	if err := errorsOf(want, have); err != nil {
		return nil, err
	}
	return c.named(ctx, bad)
}

// compareInstances orders instances as fts5vocab lists them (term, doc,
// column, offset); an exhausted stream sorts last.
func compareInstances(a, b instance) int {
	switch {
	case !a.ok:
		return 1
	case !b.ok:
		return -1
	case a.term != b.term:
		return strings.Compare(a.term, b.term)
	case a.doc != b.doc:
		return cmpInt(a.doc, b.doc)
	case a.col != b.col:
		return strings.Compare(a.col, b.col)
	}
	return cmpInt(a.offset, b.offset)
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func errorsOf(rs ...*sql.Rows) error {
	for _, r := range rs {
		if err := r.Err(); err != nil {
			return audit.Wrap(audit.EUNAVAILABLE, err, "sqlite: the text index check")
		}
	}
	return nil
}

// named turns the rows whose terms differ into findings, by event id.
func (c *textCheck) named(ctx context.Context, bad map[int64]bool) ([]vlog.IndexFinding, error) {
	var out []vlog.IndexFinding
	for seq := range bad {
		var id string
		if err := c.tx.QueryRowContext(ctx, `SELECT auditlog_id_of(id) FROM events WHERE seq = ?`, seq).Scan(&id); err != nil {
			continue // a row of the index with no event: an insertion there names no event
		}
		out = append(out, vlog.IndexFinding{Where: "text " + id, EventID: id, Detail: fmt.Sprintf("text index (row %d holds other terms than the event makes searchable)", seq)})
	}
	return out, nil
}
