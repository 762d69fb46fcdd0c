package export

import (
	"context"
	"github.com/auditlog/auditlog/audit/blob"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/auditlog/auditlog/audit/exportjob"

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
	Jobs    exportjob.Store
	Files   blob.Store
	// Notifier e-mails the owner when a job ends; nil sends nothing (the
	// job's status still tells).
	Notifier exportjob.Notifier
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
func (s *Service) Stream(ctx context.Context, w io.Writer, f audit.Filter, so audit.Sort, format exportjob.Format) (int64, error) {
	cw, err := NewEncoder(format, w)
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
	if err = NameUnreadable(cw, err); err == nil {
		err = cw.Flush()
	}
	s.rows.WithLabelValues("sync").Add(float64(cw.Rows()))
	return cw.Rows(), err
}
