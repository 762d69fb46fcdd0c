package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/auditlog/auditlog/audit/vlog"

	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/gen"
)

// benchAcceptance (issue 53) measures what authenticating acceptance
// costs the write path: every event's digest and HMAC tag at acceptance,
// kept with the row. SQLite HTTP ingest and the in-process indexer into
// Elasticsearch, each on a store that tags (as shipped) and on one that
// does not (no acceptor: what the write path cost before), alternating,
// in the same runs.
func benchAcceptance(ctx context.Context, e *env) ([]result, error) {
	dir, err := os.MkdirTemp("", "auditbench-accept")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	n := max(10000, int(200000*e.scale))
	g := gen.New(gen.Config{Seed: 53, Tenants: 10, Skew: 1.1}, n*2*(e.runs+1))
	in := max(2000, int(200000*e.scale))
	topic, _, tenants, err := produceIndexerTopic(ctx, e, in)
	if err != nil {
		return nil, err
	}
	var sqlWith, sqlWithout, ixWith, ixWithout []float64
	for run := 0; run <= e.runs; run++ {
		rates := map[bool]float64{}
		irates := map[bool]float64{}
		for _, tagged := range []bool{run%2 == 0, run%2 != 0} { // the order alternates
			var a *vlog.Acceptor
			if tagged {
				a = benchAccept
			}
			r, err := httpIngestRunAccepting(ctx, filepath.Join(dir, fmt.Sprintf("ingest-%d-%v.db", run, tagged)), g, n, sqliteBatch, noSealer, a)
			if err != nil {
				return nil, err
			}
			s, err := freshStoreWith(ctx, e, tenants, elasticsearch.StoreConfig{Accept: a, Log: true})
			if err != nil {
				return nil, err
			}
			ir, err := indexerRunOn(ctx, e, s, topic, in)
			if err != nil {
				return nil, err
			}
			rates[tagged], irates[tagged] = r, ir
		}
		log.Printf("  run %d: SQLite HTTP ingest %.0f ev/s tagged, %.0f untagged; indexer %.0f ev/s tagged, %.0f untagged",
			run, rates[true], rates[false], irates[true], irates[false])
		if run > 0 {
			sqlWith, sqlWithout = append(sqlWith, rates[true]), append(sqlWithout, rates[false])
			ixWith, ixWithout = append(ixWith, irates[true]), append(ixWithout, irates[false])
		}
	}
	return []result{
		{Name: "Acceptance tags: SQLite ingest through HTTP, tagged vs untagged", Unit: "events/s", Samples: sqlWith, Ceiling: sqlWithout,
			Target: "≥ 95% of the untagged rate", MinRatio: 0.95,
			Method: fmt.Sprintf("As the SQLite ingest row (%d generated events per run posted in arrays of %d to `POST /api/audit-events`, 2 clients, a fresh database), "+
				"on a store that tags every event at acceptance (the shipped write path: the digest of its canonical encoding and an HMAC-SHA-256 tag, kept in the row), "+
				"next to one given no acceptance key, which writes no tag (ceiling column); the two alternate their order between runs. One warm-up pair, then %d pairs.", n, sqliteBatch, e.runs)},
		{Name: "Acceptance tags: indexer Kafka → Elasticsearch, tagged vs untagged", Unit: "events/s", Samples: ixWith, Ceiling: ixWithout,
			Target: "≥ 95% of the untagged rate", MinRatio: 0.95,
			Method: fmt.Sprintf("As the indexer row (%d events of 10 tenants pre-produced to a topic, `indexer.Indexer` in-process, a new group and index prefix each run, sealing tickets queued as `index` queues them), "+
				"into a store that tags every event (the tag in the document and its ticket) next to one that writes none (ceiling column), alternating. One warm-up pair, then %d pairs.", in, e.runs)},
	}, nil
}
