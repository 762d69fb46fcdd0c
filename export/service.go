package export

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/auditlog/auditlog/audit"
)

// Config tunes exports. Zero values take the defaults.
type Config struct {
	// SyncLimit is the largest export answered at once (default
	// audit.SyncExportLimit, 10,000 rows).
	SyncLimit int64
	// Workers is how many jobs this process runs at once (default 2).
	Workers int
	// MaxActivePerTenant bounds a tenant's queued and running jobs
	// (default 3); one more is refused with ERATELIMIT.
	MaxActivePerTenant int
	// Expiry is how long a finished file is kept (default 7 days).
	Expiry time.Duration
	// Lease is how long a running job stays claimed without a heartbeat
	// (default 30 s): a job whose process died is taken up again after it.
	Lease time.Duration
	// Poll is how often the queue is looked at (default 1 s).
	Poll time.Duration
	// Progress is how often a running job records its progress and renews
	// its lease (default 1 s; at most Lease/3).
	Progress time.Duration
	// MaxAttempts bounds the runs of a job that fails for a transient
	// reason (the store unreachable); then it fails (default 3).
	MaxAttempts int
	// RetryDelay is the wait before the second attempt, doubled each time
	// (default 10 s).
	RetryDelay time.Duration
	// TempDir holds files being written (default os.TempDir()).
	TempDir string
	// Worker names this process in job leases (default a random id).
	Worker string
	// DownloadTTL is the validity of a presigned download URL (default
	// 15 min).
	DownloadTTL time.Duration
}

func (c *Config) defaults() {
	if c.SyncLimit <= 0 {
		c.SyncLimit = audit.SyncExportLimit
	}
	if c.Workers <= 0 {
		c.Workers = 2
	}
	if c.MaxActivePerTenant <= 0 {
		c.MaxActivePerTenant = 3
	}
	if c.Expiry <= 0 {
		c.Expiry = 7 * 24 * time.Hour
	}
	if c.Lease <= 0 {
		c.Lease = 30 * time.Second
	}
	if c.Poll <= 0 {
		c.Poll = time.Second
	}
	if c.Progress <= 0 {
		c.Progress = time.Second
	}
	if c.Progress > c.Lease/3 {
		c.Progress = c.Lease / 3
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 3
	}
	if c.RetryDelay <= 0 {
		c.RetryDelay = 10 * time.Second
	}
	if c.TempDir == "" {
		c.TempDir = os.TempDir()
	}
	if c.Worker == "" {
		c.Worker = uuid.NewString()
	}
	if c.DownloadTTL <= 0 {
		c.DownloadTTL = 15 * time.Minute
	}
}

// Deps are the stores the service works with.
type Deps struct {
	Scanner audit.EventScanner
	Jobs    audit.ExportJobStore
	Files   audit.ExportFiles
	// Notifier e-mails the owner when a job ends; nil sends nothing (the
	// job's status still tells).
	Notifier audit.ExportNotifier
	Logger   *slog.Logger
	Registry prometheus.Registerer
	Now      func() time.Time
}

// Service runs exports: synchronous streams and asynchronous jobs.
type Service struct {
	cfg  Config
	deps Deps
	log  *slog.Logger

	mu      sync.Mutex
	running map[string]string // job id -> tenant, jobs this process runs
	// inDoubt holds the claims whose answer was lost (job id -> the
	// attempt claimed): the next pass adopts the job if the claim landed.
	// Only the Run loop touches it.
	inDoubt map[string]int

	jobsEnded  *prometheus.CounterVec
	rows       *prometheus.CounterVec
	active     prometheus.Gauge
	notifyErrs prometheus.Counter
}

// New returns the service; call Run to work the queue.
func New(cfg Config, deps Deps) *Service {
	cfg.defaults()
	if deps.Logger == nil {
		deps.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if deps.Now == nil {
		deps.Now = time.Now
	}
	s := &Service{cfg: cfg, deps: deps, log: deps.Logger.With("component", "export"), running: map[string]string{}, inDoubt: map[string]int{}}
	s.jobsEnded = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "auditlog_export_jobs_ended_total", Help: "Export jobs ended, by final state."}, []string{"state"})
	s.rows = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "auditlog_export_rows_total", Help: "CSV rows exported, by mode (sync or job)."}, []string{"mode"})
	s.active = prometheus.NewGauge(prometheus.GaugeOpts{Name: "auditlog_export_jobs_running", Help: "Export jobs this process is running."})
	s.notifyErrs = prometheus.NewCounter(prometheus.CounterOpts{Name: "auditlog_export_notify_failures_total", Help: "Export e-mails that could not be sent."})
	if deps.Registry != nil {
		deps.Registry.MustRegister(s.jobsEnded, s.rows, s.active, s.notifyErrs)
	}
	return s
}

// SyncLimit is the largest export answered at once.
func (s *Service) SyncLimit() int64 { return s.cfg.SyncLimit }

// Count counts the rows an export of f would have.
func (s *Service) Count(ctx context.Context, f audit.Filter) (int64, error) {
	return s.deps.Scanner.CountEvents(ctx, f)
}

// Stream writes the CSV export of f in sort so to w, one scan batch at a
// time, and returns the rows written.
func (s *Service) Stream(ctx context.Context, w io.Writer, f audit.Filter, so audit.Sort) (int64, error) {
	cw, err := NewCSVWriter(w)
	if err != nil {
		return 0, err
	}
	err = s.deps.Scanner.ScanEvents(ctx, f, so, func(batch []audit.Event) error {
		for i := range batch {
			if err := cw.Write(&batch[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		err = cw.Flush()
	}
	s.rows.WithLabelValues("sync").Add(float64(cw.Rows()))
	return cw.Rows(), err
}

// Request is what an asynchronous export is asked with.
type Request struct {
	Principal audit.Principal
	Query     string
	Filter    audit.Filter
	Sort      audit.Sort
	// Expected is the count of rows at the time of the request.
	Expected int64
}

// Submit queues a job for the principal's tenant. It returns ERATELIMIT
// when the tenant has MaxActivePerTenant jobs queued or running already.
func (s *Service) Submit(ctx context.Context, r Request) (audit.ExportJob, error) {
	p := r.Principal
	active, err := s.deps.Jobs.FindExportJobs(ctx, audit.ExportJobQuery{TenantID: p.TenantID,
		States: []audit.ExportState{audit.ExportQueued, audit.ExportRunning}, Limit: s.cfg.MaxActivePerTenant})
	if err != nil {
		return audit.ExportJob{}, err
	}
	if len(active) >= s.cfg.MaxActivePerTenant {
		return audit.ExportJob{}, audit.Errorf(audit.ERATELIMIT, "this tenant has %d exports queued or running, the most allowed; retry when one ends", len(active))
	}
	j := audit.ExportJob{
		ID: uuid.NewString(), TenantID: strings.ToLower(p.TenantID),
		Owner:  audit.ExportOwner{UserID: p.UserID, Email: p.Email, Role: p.Role},
		Reason: p.Reason, Query: r.Query, Filter: r.Filter, Sort: r.Sort,
		State: audit.ExportQueued, RowsExpected: r.Expected, CreatedAt: s.deps.Now().UTC(),
	}
	if err := s.deps.Jobs.CreateExportJob(ctx, &j); err != nil {
		return audit.ExportJob{}, err
	}
	s.log.InfoContext(ctx, "export job queued", "job", j.ID, "tenant", j.TenantID, "expected", j.RowsExpected)
	return j, nil
}

// Job returns a job of the principal: ENOTFOUND for a job of another
// tenant or another user, exactly as for one that does not exist.
func (s *Service) Job(ctx context.Context, p audit.Principal, id string) (audit.ExportJob, error) {
	if _, err := uuid.Parse(id); err != nil {
		return audit.ExportJob{}, audit.Errorf(audit.ENOTFOUND, "no export job %s", id)
	}
	j, err := s.deps.Jobs.ExportJob(ctx, p.TenantID, id)
	if err != nil {
		return audit.ExportJob{}, err
	}
	if j.Owner.UserID != p.UserID || !strings.EqualFold(j.TenantID, p.TenantID) {
		return audit.ExportJob{}, audit.Errorf(audit.ENOTFOUND, "no export job %s", id)
	}
	return j, nil
}

// Jobs lists the principal's jobs, oldest first.
func (s *Service) Jobs(ctx context.Context, p audit.Principal, limit int) ([]audit.ExportJob, error) {
	return s.deps.Jobs.FindExportJobs(ctx, audit.ExportJobQuery{TenantID: p.TenantID, OwnerID: p.UserID, Limit: limit})
}

// Cancel cancels a queued or running job, or deletes the file of a done
// one; the job ends as cancelled. A running job stops at its next
// progress update.
func (s *Service) Cancel(ctx context.Context, p audit.Principal, id string) (audit.ExportJob, error) {
	for {
		j, err := s.Job(ctx, p, id)
		if err != nil {
			return j, err
		}
		if j.State == audit.ExportCancelled {
			return j, nil
		}
		if j.State.Final() && j.State != audit.ExportDone {
			return j, audit.Errorf(audit.ECONFLICT, "export job %s is %s already", id, j.State)
		}
		key := j.FileKey
		now := s.deps.Now().UTC()
		j.State, j.FinishedAt, j.FileKey, j.FileBytes, j.LeaseUntil = audit.ExportCancelled, &now, "", 0, nil
		err = s.deps.Jobs.UpdateExportJob(ctx, &j)
		if audit.ErrorCode(err) == audit.ECONFLICT {
			continue // it moved on meanwhile: look again
		}
		if err != nil {
			return j, err
		}
		if key != "" {
			if err := s.deps.Files.Delete(ctx, key); err != nil {
				s.log.WarnContext(ctx, "deleting the file of a cancelled export failed; expiry retries", "job", id, "err", err)
			}
		}
		s.jobsEnded.WithLabelValues(string(audit.ExportCancelled)).Inc()
		return j, nil
	}
}

// Download is how a finished file is fetched: a presigned URL when the
// file store has them, else a reader.
type Download struct {
	URL  string
	Body io.ReadCloser // gzip-compressed CSV
	Name string        // the attachment's file name
	Size int64         // compressed size
}

// Open returns the download of the principal's done job. It returns
// ECONFLICT when the job has no file (not done yet, failed, expired or
// cancelled), saying which.
func (s *Service) Open(ctx context.Context, p audit.Principal, id string) (Download, error) {
	j, err := s.Job(ctx, p, id)
	if err != nil {
		return Download{}, err
	}
	if j.State != audit.ExportDone || j.FileKey == "" {
		return Download{}, audit.Errorf(audit.ECONFLICT, "export job %s is %s: there is no file to download", id, j.State)
	}
	d := Download{Name: FileName(j), Size: j.FileBytes}
	url, err := s.deps.Files.DownloadURL(ctx, j.FileKey, d.Name, s.cfg.DownloadTTL)
	if err == nil {
		d.URL = url
		return d, nil
	}
	if audit.ErrorCode(err) != audit.ENOTSUPPORTED {
		return Download{}, err
	}
	d.Body, err = s.deps.Files.Open(ctx, j.FileKey)
	return d, err
}

// FileName is the attachment name of a job's file.
func FileName(j audit.ExportJob) string {
	return fmt.Sprintf("audit-log-%s-%s.csv", j.CreatedAt.UTC().Format("20060102-150405"), j.ID[:8])
}

// FileKey is where a job's file is stored.
func FileKey(j audit.ExportJob) string {
	return "exports/" + strings.ToLower(j.TenantID) + "/" + j.ID + ".csv.gz"
}

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
	matches, _ := filepath.Glob(filepath.Join(s.cfg.TempDir, "export-*.csv.gz.part"))
	for _, m := range matches {
		_ = os.Remove(m)
	}
}

// claim takes the oldest job that is queued (and due) or whose lease ran
// out, skipping tenants this process is already running a job for.
func (s *Service) claim(ctx context.Context) (audit.ExportJob, bool, error) {
	cands, err := s.deps.Jobs.FindExportJobs(ctx, audit.ExportJobQuery{States: []audit.ExportState{audit.ExportQueued, audit.ExportRunning}, Limit: 200})
	if err != nil {
		return audit.ExportJob{}, false, err
	}
	for id := range s.inDoubt {
		if !slices.ContainsFunc(cands, func(j audit.ExportJob) bool { return j.ID == id }) {
			delete(s.inDoubt, id) // neither queued nor running: nothing to adopt
		}
	}
	now := s.deps.Now().UTC()
	for _, j := range cands {
		if attempt, ok := s.inDoubt[j.ID]; ok {
			delete(s.inDoubt, j.ID)
			if j.State == audit.ExportRunning && j.Worker == s.cfg.Worker && j.Attempts == attempt {
				// This worker's claim landed though its answer was lost:
				// the job is ours, as claimed; run it.
				s.log.Info("adopting an export job whose claim answer was lost", "job", j.ID, "attempt", attempt)
				s.mu.Lock()
				s.running[j.ID] = j.TenantID
				s.mu.Unlock()
				return j, true, nil
			}
		}
		if j.State == audit.ExportQueued && j.NotBefore != nil && now.Before(*j.NotBefore) {
			continue
		}
		if j.State == audit.ExportRunning && j.LeaseUntil != nil && now.Before(*j.LeaseUntil) {
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
		if j.State == audit.ExportRunning {
			s.log.Info("taking up an export job whose worker stopped", "job", j.ID, "worker", j.Worker)
			if j.Attempts >= s.cfg.MaxAttempts {
				now := s.deps.Now().UTC()
				j.State, j.FinishedAt, j.LeaseUntil = audit.ExportFailed, &now, nil
				if j.Error == "" {
					j.Error = fmt.Sprintf("the export did not complete in %d attempts", j.Attempts)
				}
				if err := s.deps.Jobs.UpdateExportJob(ctx, &j); err == nil {
					s.end(ctx, j)
				}
				continue
			}
		}
		lease := now.Add(s.cfg.Lease)
		j.State, j.Worker, j.LeaseUntil, j.StartedAt, j.NotBefore = audit.ExportRunning, s.cfg.Worker, &lease, &now, nil
		j.RowsWritten, j.Attempts = 0, j.Attempts+1
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
			return audit.ExportJob{}, false, err
		}
		s.mu.Lock()
		s.running[j.ID] = j.TenantID
		s.mu.Unlock()
		return j, true, nil
	}
	return audit.ExportJob{}, false, nil
}

var (
	errCancelled = errors.New("the export was cancelled")
	errLeaseLost = errors.New("another worker took the export over")
	errStalled   = errors.New("the store stopped answering")
)

// execute runs one claimed job to its end.
func (s *Service) execute(ctx context.Context, j audit.ExportJob) {
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
		now := s.deps.Now().UTC()
		exp := now.Add(s.cfg.Expiry)
		j.State, j.FinishedAt, j.ExpiresAt, j.FileKey, j.FileBytes, j.LeaseUntil, j.Error = audit.ExportDone, &now, &exp, key, size, nil, ""
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
		j.State, j.Worker, j.LeaseUntil, j.Attempts = audit.ExportQueued, "", nil, j.Attempts-1
		if err := s.saveRetrying(rctx, &j); err != nil {
			log.Warn("could not requeue the export at shutdown; its lease will expire", "err", err)
		} else {
			log.Info("export job requeued at shutdown")
		}
	case audit.ErrorCode(err) == audit.EUNAVAILABLE && j.Attempts < s.cfg.MaxAttempts:
		next := s.deps.Now().UTC().Add(s.cfg.RetryDelay << (j.Attempts - 1))
		j.State, j.Worker, j.LeaseUntil, j.NotBefore = audit.ExportQueued, "", nil, &next
		j.Error = fmt.Sprintf("attempt %d of %d failed (%s); retrying at %s", j.Attempts, s.cfg.MaxAttempts, audit.ErrorMessage(err), next.Format(time.RFC3339))
		log.Warn("export attempt failed; retrying", "err", err, "retryAt", next)
		if err := s.saveRetrying(ctx, &j); err != nil {
			log.Warn("could not requeue the export; its lease will expire and it runs again", "err", err)
		}
	default:
		now := s.deps.Now().UTC()
		j.State, j.FinishedAt, j.LeaseUntil = audit.ExportFailed, &now, nil
		j.Error = audit.ErrorMessage(err)
		if audit.ErrorCode(err) == audit.EUNAVAILABLE {
			j.Error = fmt.Sprintf("the audit log store was unavailable for %d attempts: %s", j.Attempts, audit.ErrorMessage(err))
		}
		log.Error("export job failed", "err", err)
		s.fail(ctx, j, log)
	}
}

// fail records a failed job and tells its owner. When the job store is
// unreachable too, the lease runs out and the next claim records the
// failure (the attempts are spent).
func (s *Service) fail(ctx context.Context, j audit.ExportJob, log *slog.Logger) {
	if err := s.saveRetrying(ctx, &j); err != nil {
		log.Warn("could not record the failure; the next claim will", "err", err)
		return
	}
	s.end(ctx, j)
}

// saveRetrying saves the job, retrying while the job store is unreachable
// and the job's lease holds.
func (s *Service) saveRetrying(ctx context.Context, j *audit.ExportJob) error {
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
func (s *Service) save(ctx context.Context, j *audit.ExportJob) error {
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
		case cur.State == audit.ExportCancelled:
			return errCancelled
		case cur.State == audit.ExportRunning && cur.Worker == s.cfg.Worker && cur.Rev != j.Rev:
			j.Rev = cur.Rev
		default:
			return errLeaseLost
		}
	}
}

// end counts a final job and e-mails its owner.
func (s *Service) end(ctx context.Context, j audit.ExportJob) {
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

// write produces the job's file: gzip-compressed CSV into a temporary
// file, renewing the lease and recording progress as it goes, then hands
// it to the file store. It returns the file's key and size.
func (s *Service) write(ctx context.Context, j *audit.ExportJob) (string, int64, error) {
	if err := os.MkdirAll(s.cfg.TempDir, 0o750); err != nil {
		return "", 0, audit.Wrap(audit.EINTERNAL, err, "export temp dir")
	}
	tmp, err := os.CreateTemp(s.cfg.TempDir, "export-*.csv.gz.part")
	if err != nil {
		return "", 0, audit.Wrap(audit.EINTERNAL, err, "export temp file")
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	buf := bufio.NewWriterSize(tmp, 256<<10)
	gz, _ := gzip.NewWriterLevel(buf, gzip.BestSpeed)
	cw, err := NewCSVWriter(gz)
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
	if err != nil {
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
func (s *Service) heartbeat(ctx context.Context, j *audit.ExportJob, rows int64) error {
	lease := s.deps.Now().UTC().Add(s.cfg.Lease)
	j.RowsWritten, j.LeaseUntil = rows, &lease
	err := s.save(ctx, j)
	if err != nil && !errors.Is(err, errCancelled) && !errors.Is(err, errLeaseLost) {
		// The job store is unreachable: keep writing while the lease
		// holds; the next heartbeat tries again.
		s.log.Warn("recording export progress failed", "job", j.ID, "err", err)
		return nil
	}
	return err
}

// Expire deletes the files of done jobs past their expiry and marks the
// jobs expired.
func (s *Service) Expire(ctx context.Context) error {
	for {
		jobs, err := s.deps.Jobs.FindExportJobs(ctx, audit.ExportJobQuery{States: []audit.ExportState{audit.ExportDone}, ExpiresBefore: s.deps.Now(), Limit: 100})
		if err != nil {
			return err
		}
		for _, j := range jobs {
			if err := s.deps.Files.Delete(ctx, j.FileKey); err != nil {
				return err
			}
			j.State, j.FileKey, j.FileBytes = audit.ExportExpired, "", 0
			if err := s.deps.Jobs.UpdateExportJob(ctx, &j); err != nil && audit.ErrorCode(err) != audit.ECONFLICT {
				return err
			}
			s.jobsEnded.WithLabelValues(string(audit.ExportExpired)).Inc()
			s.log.Info("export file expired and deleted", "job", j.ID, "tenant", j.TenantID)
		}
		if len(jobs) < 100 {
			return nil
		}
	}
}
