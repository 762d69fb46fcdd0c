package export

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/auditlog/auditlog/audit/exportjob"

	"github.com/auditlog/auditlog/audit"
)

// Running one claimed job: writing its file, renewing its lease.

var (
	errCancelled = errors.New("the export was cancelled")
	errLeaseLost = errors.New("another worker took the export over")
	errStalled   = errors.New("the store stopped answering")
)

// execute runs one claimed job to its end.
func (s *Service) execute(ctx context.Context, j exportjob.Job) {
	s.active.Inc()
	defer s.active.Dec()
	defer func() {
		s.mu.Lock()
		delete(s.running, j.ID)
		s.mu.Unlock()
	}()
	log := s.log.With("job", j.ID, "tenant", j.TenantID, "attempt", j.Attempts)
	log.Info("export job started", "expected", j.RowsExpected)
	start := time.Now()
	key, size, err := s.write(ctx, &j)
	switch {
	case err == nil:
		j.Finish(key, size, s.deps.Now().UTC(), s.cfg.Expiry)
		if err := s.save(ctx, &j); err != nil {
			log.Warn("export finished but could not be recorded", "err", err)
			_ = s.deps.Files.Delete(context.WithoutCancel(ctx), key)
			return
		}
		log.Info("export job done", "rows", j.RowsWritten, "bytes", size, "seconds", time.Since(start).Seconds())
		s.end(ctx, j)
	case errors.Is(err, errCancelled), errors.Is(err, errLeaseLost):
		log.Info("export job stopped", "why", err.Error())
	case ctx.Err() != nil:
		// Shutting down: hand the job back to the queue at once (a kill
		// leaves it to the lease instead).
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		j.HandBack()
		if err := s.saveRetrying(rctx, &j); err != nil {
			log.Warn("could not requeue the export at shutdown; its lease will expire", "err", err)
		} else {
			log.Info("export job requeued at shutdown")
		}
	case audit.ErrorCode(err) == audit.EUNAVAILABLE && j.Attempts < s.cfg.MaxAttempts:
		next := s.deps.Now().UTC().Add(s.cfg.RetryDelay << (j.Attempts - 1))
		j.Retry(next, fmt.Sprintf("attempt %d of %d failed (%s); retrying at %s", j.Attempts, s.cfg.MaxAttempts, audit.ErrorMessage(err), next.Format(time.RFC3339)))
		log.Warn("export attempt failed; retrying", "err", err, "retryAt", next)
		if err := s.saveRetrying(ctx, &j); err != nil {
			log.Warn("could not requeue the export; its lease will expire and it runs again", "err", err)
		}
	default:
		reason := audit.ErrorMessage(err)
		if audit.ErrorCode(err) == audit.EUNAVAILABLE {
			reason = fmt.Sprintf("the audit log store was unavailable for %d attempts: %s", j.Attempts, audit.ErrorMessage(err))
		}
		j.Fail(reason, s.deps.Now().UTC())
		log.Error("export job failed", "err", err)
		s.fail(ctx, j, log)
	}
}

// write produces the job's file: gzip-compressed CSV or JSON lines into a temporary
// file, renewing the lease and recording progress as it goes, then hands
// it to the file store. It returns the file's key and size.
func (s *Service) write(ctx context.Context, j *exportjob.Job) (string, int64, error) {
	if err := os.MkdirAll(s.cfg.TempDir, 0o700); err != nil {
		return "", 0, audit.Wrap(audit.EINTERNAL, err, "export temp dir")
	}
	tmp, err := os.CreateTemp(s.cfg.TempDir, "export-*.gz.part")
	if err != nil {
		return "", 0, audit.Wrap(audit.EINTERNAL, err, "export temp file")
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	buf := bufio.NewWriterSize(tmp, 256<<10)
	gz, _ := gzip.NewWriterLevel(buf, gzip.BestSpeed)
	cw, err := NewEncoder(j.Format, gz)
	if err != nil {
		return "", 0, audit.Wrap(audit.EINTERNAL, err, "writing the export file")
	}
	last := time.Now()
	// The lease is renewed between pages: a store that sends nothing for a
	// whole lease (hung, not refusing) ends the attempt as unavailable, at
	// the moment another worker could take the job over.
	sctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	watchdog := time.AfterFunc(s.cfg.Lease, func() { stop(errStalled) })
	defer watchdog.Stop()
	err = s.deps.Scanner.ScanEvents(sctx, j.Filter, j.Sort, func(batch []audit.Event) error {
		watchdog.Reset(s.cfg.Lease)
		for i := range batch {
			if err := cw.Write(&batch[i]); err != nil {
				return audit.Wrap(audit.EINTERNAL, err, "writing the export file")
			}
		}
		if time.Since(last) >= s.cfg.Progress {
			last = time.Now()
			return s.heartbeat(ctx, j, cw.Rows())
		}
		return nil
	})
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(sctx), errStalled) {
		return "", 0, audit.Errorf(audit.EUNAVAILABLE, "the audit log store sent nothing for %s", s.cfg.Lease)
	}
	if err := NameUnreadable(cw, err); err != nil {
		return "", 0, err
	}
	s.rows.WithLabelValues("job").Add(float64(cw.Rows()))
	j.RowsWritten = cw.Rows()
	if err := errors.Join(cw.Flush(), gz.Close(), buf.Flush(), tmp.Sync()); err != nil {
		return "", 0, audit.Wrap(audit.EINTERNAL, err, "writing the export file")
	}
	size, err := tmp.Seek(0, io.SeekCurrent)
	if err != nil {
		return "", 0, audit.Wrap(audit.EINTERNAL, err, "export temp file")
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return "", 0, audit.Wrap(audit.EINTERNAL, err, "export temp file")
	}
	// A last heartbeat: a job cancelled meanwhile stores nothing.
	if err := s.heartbeat(ctx, j, j.RowsWritten); err != nil {
		return "", 0, err
	}
	key := FileKey(*j)
	if err := s.deps.Files.Put(ctx, key, tmp, size); err != nil {
		return "", 0, err
	}
	return key, size, nil
}

// heartbeat records progress and renews the lease; it fails with
// errCancelled or errLeaseLost when the job is no longer this worker's.
func (s *Service) heartbeat(ctx context.Context, j *exportjob.Job, rows int64) error {
	j.Renew(rows, s.deps.Now().UTC(), s.cfg.Lease)
	err := s.save(ctx, j)
	if err != nil && !errors.Is(err, errCancelled) && !errors.Is(err, errLeaseLost) {
		// The job store is unreachable: keep writing while the lease
		// holds; the next heartbeat tries again.
		s.log.Warn("recording export progress failed", "job", j.ID, "err", err)
		return nil
	}
	return err
}
