package sqlite_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/search"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/sqlite"
)

func TestZZSearch(t *testing.T) {
	ctx := context.Background()
	path := "/tmp/zz/audit.db"
	_, statErr := os.Stat(path)
	s, err := sqlite.Open(ctx, sqlite.Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	big := gen.New(gen.Config{Seed: 3, Tenants: 1, WithIDs: true}, 500000)
	tenant := big.Tenants()[0].ID
	if statErr != nil {
		rest := gen.New(gen.Config{Seed: 4, Tenants: 9, WithIDs: true}, 500000)
		for i := 0; i < 1000; i++ {
			var batch []audit.Event
			for j := 0; j < 500; j++ {
				batch = append(batch, big.Next())
			}
			for j := 0; j < 500; j++ {
				batch = append(batch, rest.Next())
			}
			if _, err := s.WriteEvents(ctx, batch); err != nil {
				t.Fatal(err)
			}
		}
		t.Log("loaded")
	}
	for _, qs := range []string{"zendesk", "ip:198.0.0.0/8", "ip:10.1.0.0/16", "hubspot", "supervisor", "totp"} {
		text, terms, err := search.Parse(qs)
		if err != nil {
			t.Fatal(err)
		}
		f := audit.Filter{TenantID: tenant, Q: text, Terms: terms}
		f.Normalize()
		for k := 0; k < 3; k++ {
			t0 := time.Now()
			res, err := s.SearchEvents(ctx, audit.Query{Filter: f, Sort: audit.DefaultSort, PageSize: 50, Page: 1})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%-20s %6.1f ms total %v %d", qs, float64(time.Since(t0).Microseconds())/1000, res.Total, len(res.Events))
		}
	}
}
