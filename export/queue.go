package export

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/auditlog/auditlog/audit/exportjob"

	"github.com/auditlog/auditlog/audit"
)

// The queue: claiming jobs (and taking over those whose worker died),
// and expiring old files.

// Run works the queue until ctx ends: it claims queued jobs (and running
// ones whose lease ran out), runs up to Workers at once, and deletes
// expired files. On return, the jobs it was running are back in the queue.
func (s *Service) Run(ctx context.Context) {
	s.cleanTemp()
	var wg sync.WaitGroup
	slots := make(chan struct{}, s.cfg.Workers)
	tick := time.NewTicker(s.cfg.Poll)
	defer tick.Stop()
	lastExpiry := time.Time{}
	// Expired files are looked for every minute, or more often when files
	// live less than two minutes.
	every := min(time.Minute, max(s.cfg.Expiry/2, s.cfg.Poll))
	for {
		if now := s.deps.Now(); now.Sub(lastExpiry) >= every || now.Before(lastExpiry) {
			if err := s.Expire(ctx); err != nil && ctx.Err() == nil {
				s.log.Warn("expiring export files failed; the next pass retries", "err", err)
			}
			lastExpiry = now
		}
		for len(slots) < cap(slots) {
			j, ok, err := s.claim(ctx)
			if err != nil {
				if ctx.Err() == nil {
					s.log.Warn("claiming an export job failed; retrying", "err", err)
				}
				break
			}
			if !ok {
				break
			}
			slots <- struct{}{}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { <-slots }()
				s.execute(ctx, j)
			}()
		}
		select {
		case <-ctx.Done():
			wg.Wait()
			return
		case <-tick.C:
		}
	}
}

// cleanTemp removes the partial files of runs that died with the process.
func (s *Service) cleanTemp() {
	matches, _ := filepath.Glob(filepath.Join(s.cfg.TempDir, "export-*.gz.part"))
	for _, m := range matches {
		_ = os.Remove(m)
	}
}

// claim takes the oldest job that is queued (and due) or whose lease ran
// out, skipping tenants this process is already running a job for.
func (s *Service) claim(ctx context.Context) (exportjob.Job, bool, error) {
	cands, err := s.deps.Jobs.FindExportJobs(ctx, exportjob.Query{States: []exportjob.State{exportjob.Queued, exportjob.Running}, Limit: 200})
	if err != nil {
		return exportjob.Job{}, false, err
	}
	for id := range s.inDoubt {
		if !slices.ContainsFunc(cands, func(j exportjob.Job) bool { return j.ID == id }) {
			delete(s.inDoubt, id) // neither queued nor running: nothing to adopt
		}
	}
	now := s.deps.Now().UTC()
	for _, j := range cands {
		if attempt, ok := s.inDoubt[j.ID]; ok {
			delete(s.inDoubt, j.ID)
			if j.State == exportjob.Running && j.Worker == s.cfg.Worker && j.Attempts == attempt {
				// This worker's claim landed though its answer was lost:
				// the job is ours, as claimed; run it.
				s.log.Info("adopting an export job whose claim answer was lost", "job", j.ID, "attempt", attempt)
				s.mu.Lock()
				s.running[j.ID] = j.TenantID
				s.mu.Unlock()
				return j, true, nil
			}
		}
		if !j.Claimable(now) {
			continue
		}
		s.mu.Lock()
		busy := false
		for id, tenant := range s.running {
			busy = busy || id == j.ID || tenant == j.TenantID
		}
		s.mu.Unlock()
		if busy {
			continue
		}
		if j.State == exportjob.Running {
			s.log.Info("taking up an export job whose worker stopped", "job", j.ID, "worker", j.Worker)
			if j.Attempts >= s.cfg.MaxAttempts {
				j.OutOfAttempts(s.deps.Now().UTC())
				if err := s.deps.Jobs.UpdateExportJob(ctx, &j); err == nil {
					s.end(ctx, j)
				}
				continue
			}
		}
		j.Claim(s.cfg.Worker, now, s.cfg.Lease)
		// The claim is not cut short by a shutdown: a claim that landed
		// but whose answer was lost would leave the job to its lease.
		// Claimed, it is handed back at once by execute when shutting down.
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		err := s.deps.Jobs.UpdateExportJob(uctx, &j)
		cancel()
		if audit.ErrorCode(err) == audit.ECONFLICT || audit.ErrorCode(err) == audit.ENOTFOUND {
			continue // another worker was faster
		}
		if err != nil {
			// The update may have landed with its answer lost (a cut
			// connection): the next pass looks, rather than leaving the
			// job to its lease and spending an attempt.
			s.inDoubt[j.ID] = j.Attempts
			return exportjob.Job{}, false, err
		}
		s.mu.Lock()
		s.running[j.ID] = j.TenantID
		s.mu.Unlock()
		return j, true, nil
	}
	return exportjob.Job{}, false, nil
}

// Expire deletes the files of done jobs past their expiry and marks the
// jobs expired.
func (s *Service) Expire(ctx context.Context) error {
	for {
		jobs, err := s.deps.Jobs.FindExportJobs(ctx, exportjob.Query{States: []exportjob.State{exportjob.Done}, ExpiresBefore: s.deps.Now(), Limit: 100})
		if err != nil {
			return err
		}
		for _, j := range jobs {
			if err := s.deps.Files.Delete(ctx, j.FileKey); err != nil {
				return err
			}
			j.Expire()
			if err := s.deps.Jobs.UpdateExportJob(ctx, &j); err != nil && audit.ErrorCode(err) != audit.ECONFLICT {
				return err
			}
			s.jobsEnded.WithLabelValues(string(exportjob.Expired)).Inc()
			s.log.Info("export file expired and deleted", "job", j.ID, "tenant", j.TenantID)
		}
		if len(jobs) < 100 {
			return nil
		}
	}
}
