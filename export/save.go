package export

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/auditlog/auditlog/audit/exportjob"

	"github.com/auditlog/auditlog/audit"
)

// Recording a job's changes under compare-and-set, and telling its owner
// when it ends.

// fail records a failed job and tells its owner. When the job store is
// unreachable too, the lease runs out and the next claim records the
// failure (the attempts are spent).
func (s *Service) fail(ctx context.Context, j exportjob.Job, log *slog.Logger) {
	if err := s.saveRetrying(ctx, &j); err != nil {
		log.Warn("could not record the failure; the next claim will", "err", err)
		return
	}
	s.end(ctx, j)
}

// saveRetrying saves the job, retrying while the job store is unreachable
// and the job's lease holds.
func (s *Service) saveRetrying(ctx context.Context, j *exportjob.Job) error {
	deadline := time.Now().Add(s.cfg.Lease)
	if j.LeaseUntil != nil {
		deadline = time.Now().Add(j.LeaseUntil.Sub(s.deps.Now()))
	}
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	for {
		err := s.save(ctx, j)
		if err == nil || errors.Is(err, errCancelled) || errors.Is(err, errLeaseLost) || audit.ErrorCode(err) != audit.EUNAVAILABLE || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// save updates the job. A conflict means the job changed meanwhile:
// cancelled, or taken over by another worker after this one's lease ran
// out; or this worker's own previous write landed though its answer was
// lost (a cut connection), in which case the update goes on from it.
func (s *Service) save(ctx context.Context, j *exportjob.Job) error {
	// A write that takes longer than the lease is of no use to it.
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Lease)
	defer cancel()
	for {
		err := s.deps.Jobs.UpdateExportJob(ctx, j)
		if audit.ErrorCode(err) != audit.ECONFLICT {
			return err
		}
		cur, gerr := s.deps.Jobs.ExportJob(ctx, j.TenantID, j.ID)
		if gerr != nil {
			return gerr
		}
		switch {
		case cur.State == exportjob.Cancelled:
			return errCancelled
		case cur.State == exportjob.Running && cur.Worker == s.cfg.Worker && cur.Rev != j.Rev:
			j.Rev = cur.Rev
		default:
			return errLeaseLost
		}
	}
}

// end counts a final job and e-mails its owner.
func (s *Service) end(ctx context.Context, j exportjob.Job) {
	s.jobsEnded.WithLabelValues(string(j.State)).Inc()
	if s.deps.Notifier == nil {
		return
	}
	var err error
	for attempt := 1; ; attempt++ {
		if err = s.deps.Notifier.NotifyExport(ctx, j); err == nil {
			return
		}
		if attempt == 3 || ctx.Err() != nil {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Duration(attempt) * time.Second):
		}
	}
	s.notifyErrs.Inc()
	s.log.Error("the export e-mail could not be sent", "job", j.ID, "to", j.Owner.Email, "err", err)
	j.Error = strings.TrimSpace(j.Error + " (the e-mail notice could not be sent: " + err.Error() + ")")
	_ = s.save(context.WithoutCancel(ctx), &j)
}
