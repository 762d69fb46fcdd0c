package elasticsearch_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/internal/testkit/golden"
	"github.com/auditlog/auditlog/internal/testkit/storetest"
)

// TestScanCollapsesDuplicates stores every event of a tenant twice, in two
// backing indices (written again after a rollover: op_type create cannot
// see the first copy), as a redelivery across a rollover would. Searches
// see both copies; the export scan yields each id once, in order, across
// pages.
func TestScanCollapsesDuplicates(t *testing.T) {
	s, _ := newStore(t, elasticsearch.StoreConfig{Accept: accepttest.Acceptor, ScanPageSize: 97})
	ctx := context.Background()
	d := storetest.NewDataset(1200)
	storetest.Write(t, s, d.Events)
	stream := s.StreamName(audit.PlanEnterprise, d.A)
	if err := s.Client().DoJSON(ctx, http.MethodPost, "/"+stream+"/_rollover", nil, nil); err != nil {
		t.Fatal(err)
	}
	storetest.Write(t, s, d.Events)
	if err := s.Client().DoJSON(ctx, http.MethodPost, "/"+stream+"/_refresh", nil, nil); err != nil {
		t.Fatal(err)
	}
	f := audit.Filter{TenantID: d.A}
	if n, err := s.CountEvents(ctx, f); err != nil || n != int64(2*len(d.Events)) {
		t.Fatalf("count %d (%v): the duplicates were not stored twice, the test proves nothing", n, err)
	}
	for _, so := range []audit.Sort{audit.DefaultSort, {Field: audit.SortActorEmail}, {Field: audit.SortAction, Desc: true}} {
		want := storetest.Expected(d.Events, func(*audit.Event) bool { return true }, so)
		got := storetest.Scan(t, s, f, so)
		if len(got) != len(want) {
			t.Fatalf("%v: scan gave %d events, want %d", so, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%v: difference at %d", so, i)
			}
		}
	}
}

func TestScanBodyGolden(t *testing.T) {
	f := audit.Filter{TenantID: "6f1c2f4e-8a51-4f7a-9a53-0c7f1f3b1c11", Actions: []audit.Action{"delete"}, ResourceTypes: []string{"queue"}}
	golden.AssertJSON(t, "testdata/scan_page.golden.json", elasticsearch.ScanBody(f, audit.DefaultSort, "PIT-ID", 2000, json.RawMessage(`[1793000000000,"evt_x",42]`)))
}
