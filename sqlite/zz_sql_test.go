package sqlite

import (
	"context"
	"database/sql"
	"os"
	"strings"
	"testing"
	"time"
)

func TestZZSQL(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("sqlite", "file:"+os.Getenv("ZZDB"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	src, _ := os.ReadFile(os.Getenv("ZZSQL"))
	for _, stmt := range strings.Split(string(src), ";;") {
		stmt = strings.TrimSpace(stmt)
		if stmt == "" {
			continue
		}
		t0 := time.Now()
		if strings.HasPrefix(strings.ToUpper(stmt), "SELECT") {
			rows, err := db.QueryContext(ctx, stmt)
			if err != nil {
				t.Fatalf("%s: %v", stmt, err)
			}
			cols, _ := rows.Columns()
			for rows.Next() {
				v := make([]any, len(cols))
				p := make([]any, len(cols))
				for i := range v {
					p[i] = &v[i]
				}
				rows.Scan(p...)
				t.Logf("%v", v)
			}
			rows.Close()
		} else if _, err := db.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
		t.Logf("(%s) %.60s", time.Since(t0).Round(time.Millisecond), strings.ReplaceAll(stmt, "\n", " "))
	}
}
