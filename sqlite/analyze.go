package sqlite

import (
	"context"
	"log/slog"
)

// The query planner chooses among the events' indexes by their
// statistics (sqlite_stat1, and stat4's samples for ranges). Without
// them it guesses, and a search-language query whose terms are two index
// ranges (actor:an* and ip:198.0.0.0/8) scanned the wide one: 542 ms at
// 1M events where the narrow one answers in under a millisecond. So the
// writer keeps statistics: a full ANALYZE once the events table holds
// analyzeMin rows, then each time it has doubled since the last one. At
// 1M events an ANALYZE takes about 3 s of the writer (writes wait, none is
// lost), log2(N) times over a store's life. (A limited ANALYZE,
// analysis_limit, is cheaper but its estimates chose the wide range.)
const analyzeMin = 10000

// analyzer counts the rows written since the last ANALYZE.
type analyzer struct {
	base, since int64
}

// start reads the table's size, and analyzes at once a table that has
// enough rows and no statistics yet.
func (s *Store) startAnalyzer(ctx context.Context) {
	var n, stats int64
	_ = s.w.QueryRowContext(ctx, `SELECT count(*) FROM events`).Scan(&n)
	_ = s.w.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE name = 'sqlite_stat1'`).Scan(&stats)
	if stats > 0 {
		_ = s.w.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_stat1 WHERE tbl = 'events'`).Scan(&stats)
	}
	s.stats = analyzer{base: n}
	if n >= analyzeMin && stats == 0 {
		s.analyze(ctx)
	}
}

// wrote counts created rows and analyzes when the table doubled.
func (s *Store) wrote(ctx context.Context, created int) {
	s.stats.since += int64(created)
	if s.stats.base+s.stats.since >= analyzeMin && s.stats.since >= max(s.stats.base, analyzeMin) {
		s.analyze(ctx)
	}
}

func (s *Store) analyze(ctx context.Context) {
	if _, err := s.w.ExecContext(ctx, `ANALYZE`); err != nil {
		slog.Default().Warn("sqlite: ANALYZE failed; queries plan without fresh statistics", "err", err)
		return
	}
	s.stats = analyzer{base: s.stats.base + s.stats.since}
}
