package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/auditlog/auditlog/audit/vlog"

	"github.com/auditlog/auditlog/seal"
)

// repairThenCheck rewrites the index data of each event rep names
// misindexed (and recounts the rollups when one is named), from the body
// its leaf proved intact, prints what it repaired, and verifies again:
// the second report is the one returned.
func (a logArgs) repairThenCheck(ctx context.Context, c Config, keys vlog.Keys, rep seal.Report, stdout io.Writer) (seal.Report, error) {
	var ids []string
	aggregates := false
	for _, f := range rep.Findings {
		switch {
		case f.Kind != "misindexed":
		case f.Index >= 0:
			ids = append(ids, f.EventID)
		default:
			aggregates = true
		}
	}
	if len(ids) == 0 && !aggregates {
		return rep, nil
	}
	for _, f := range rep.Findings {
		fmt.Fprintln(stdout, f)
	}
	store, closeStore, err := openTenantDirectory(ctx, "log", c)
	if err != nil {
		return rep, err
	}
	defer closeStore()
	r, ok := store.(vlog.IndexRepairer)
	if !ok {
		return rep, errors.New("this store cannot repair its index data")
	}
	n, err := r.RepairIndex(ctx, a.tenant, ids, aggregates)
	if err != nil {
		return rep, fmt.Errorf("repairing: %w", err)
	}
	what := []string{fmt.Sprintf("the index data of %d events", n)}
	if aggregates {
		what = append(what, "the hourly rollups")
	}
	fmt.Fprintf(stdout, "repaired %s from the events as sealed; verifying again\n", strings.Join(what, " and "))
	src, done, err := a.source(ctx, c)
	if err != nil {
		return rep, err
	}
	again, err := seal.Check(ctx, src, a.tenant, keys, a.grace)
	return again, errors.Join(err, done())
}
