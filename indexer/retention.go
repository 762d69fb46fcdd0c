package indexer

import (
	"context"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/backoff"
)

// dropExpired takes out of pending the events older than their tenant's
// retention (retention.Gate) and dead-letters them with the reason:
// stored, they would never be shown. A directory that cannot be read is
// retried like a failed write; it returns an error only when ctx ends.
func (ix *Indexer) dropExpired(ctx context.Context, d *decoded, pending []int) ([]int, error) {
	if ix.deps.Retention == nil || len(pending) == 0 {
		return pending, nil
	}
	events := d.pendingEvents(pending)
	var verdicts []error
	err := backoff.Retry(ctx, ix.newBackoff(), func(err error) { ix.log.Warn("reading the tenant directory failed; retrying", "err", err) },
		func() (err error) { verdicts, err = ix.deps.Retention.Check(ctx, events); return err })
	if err != nil {
		return nil, err
	}
	kept := pending[:0:0]
	for j, i := range pending {
		if verdicts[j] != nil {
			d.dead = append(d.dead, deadLetter{msg: d.source(i), code: audit.ErrorCode(verdicts[j]), reason: verdicts[j].Error()})
			continue
		}
		kept = append(kept, i)
	}
	return kept, nil
}
