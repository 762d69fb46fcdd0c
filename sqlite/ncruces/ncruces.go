// Package ncruces opens the embedded store's database with
// github.com/ncruces/go-sqlite3, the second pure-Go SQLite, for the
// benchmark that compares it with modernc.org/sqlite on the same schema
// and batches (`make bench`, sqlite-variants). The service itself never
// uses it: sqlite.Config.OpenDB is set by the benchmark alone.
package ncruces

import (
	"database/sql"
	"fmt"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/driver"
	"github.com/ncruces/go-sqlite3/ext/fts5"
)

// Open opens dsn with FTS5 and the two functions the migrations name
// (sqlite/functions.go). On a new database the migrations that call them
// read no rows, so here they only fail, loudly, if ever called.
func Open(dsn string) (*sql.DB, error) {
	return driver.Open(dsn, func(c *sqlite3.Conn) error {
		if err := fts5.Register(c); err != nil {
			return err
		}
		for _, name := range []string{"auditlog_search_text", "auditlog_ip_key"} {
			err := c.CreateFunction(name, 1, sqlite3.DETERMINISTIC, func(ctx sqlite3.Context, _ ...sqlite3.Value) {
				ctx.ResultError(fmt.Errorf("%s is not available on the benchmark's second engine", name))
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
}
