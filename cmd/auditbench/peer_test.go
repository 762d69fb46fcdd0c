package main

import (
	"strings"
	"testing"
)

// readBatches counts the indexer's JSON "batch written" lines, passes
// every other line on, and closes its channel when the log ends, so that
// a run whose process exits (or logs in another format) fails at once
// instead of waiting out its ten minutes.
func TestReadBatchesCountsJSONLinesAndEnds(t *testing.T) {
	log := strings.Join([]string{
		`{"time":"2026-11-28T04:23:44Z","level":"INFO","msg":"consuming","component":"indexer"}`,
		`{"time":"2026-11-28T04:23:46Z","level":"DEBUG","msg":"batch written","component":"indexer","created":176,"duplicates":2,"deadLettered":0}`,
		`time=2026-11-28T04:23:48Z level=DEBUG msg="batch written" component=indexer created=1000 duplicates=0 deadLettered=0`,
		`{"time":"2026-11-28T04:23:49Z","level":"DEBUG","msg":"batch written","component":"indexer","created":87,"duplicates":0,"deadLettered":1}`,
	}, "\n")
	batches := make(chan writtenBatch)
	go readBatches(strings.NewReader(log), batches, make(chan struct{}))
	var got []writtenBatch
	for b := range batches {
		got = append(got, b)
	}
	if len(got) != 2 {
		t.Fatalf("read %d batches, want the 2 JSON ones: %+v", len(got), got)
	}
	if got[0].Created != 176 || got[0].Duplicates != 2 || got[1].Created != 87 || got[1].DeadLettered != 1 {
		t.Fatalf("batches %+v", got)
	}
}
