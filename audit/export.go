package audit

import (
	"context"
	"io"
	"time"
)

// SyncExportLimit is the largest export served at once (spec §8): above
// it the export is produced by an asynchronous job and the user is told
// by e-mail.
const SyncExportLimit = 10000

// ExportColumns are the standard columns of a CSV export, in order: one
// column per nested field, and diff as compact JSON.
var ExportColumns = []string{
	"id", "timestamp", "tenantId", "actor.id", "actor.email", "actor.role", "actor.ip", "actor.userAgent",
	"action", "resource.type", "resource.id", "crossTenant", "category", "outcome", "reason", "diff",
}

// EventScanner reads every event of a filter, for exports.
type EventScanner interface {
	// CountEvents counts the events of f exactly. It returns EUNAVAILABLE
	// when the store cannot be reached.
	CountEvents(ctx context.Context, f Filter) (int64, error)
	// ScanEvents calls fn with successive batches of the events of f in
	// sort s (the id breaking ties), each id once, read from a consistent
	// snapshot where the store has one (a point in time). fn must not keep
	// the slice after it returns. ScanEvents stops at fn's first error and
	// returns it; it returns EUNAVAILABLE when the store cannot be reached.
	ScanEvents(ctx context.Context, f Filter, s Sort, fn func([]Event) error) error
}

// ExportState is where an export job is in its life.
type ExportState string

// The states of an export job: queued → running → done | failed, then
// expired when its file is deleted; cancelled when its owner deletes it.
const (
	ExportQueued    ExportState = "queued"
	ExportRunning   ExportState = "running"
	ExportDone      ExportState = "done"
	ExportFailed    ExportState = "failed"
	ExportExpired   ExportState = "expired"
	ExportCancelled ExportState = "cancelled"
)

// Final reports whether the job will not change any more by itself.
func (s ExportState) Final() bool {
	return s == ExportDone || s == ExportFailed || s == ExportExpired || s == ExportCancelled
}

// ExportOwner is the user who asked for an export; only they see the job.
type ExportOwner struct {
	UserID string `json:"userId"`
	Email  string `json:"email"`
	Role   string `json:"role"`
}

// ExportJob is an asynchronous export. The stores persist it as JSON with
// these names.
type ExportJob struct {
	ID       string      `json:"id"`
	TenantID string      `json:"tenantId"`
	Owner    ExportOwner `json:"owner"`
	// Reason is the declared reason of an operator-team export.
	Reason string `json:"reason,omitempty"`
	// Query is the request's query string, as the user gave it (shown
	// back); Filter and Sort are what runs. Filter.To is pinned at the
	// time of the request, so a retried or restarted job writes the same
	// rows.
	Query  string `json:"query"`
	Filter Filter `json:"filter"`
	Sort   Sort   `json:"sort"`

	State        ExportState `json:"state"`
	RowsWritten  int64       `json:"rowsWritten"`
	RowsExpected int64       `json:"rowsExpected"`
	// Error says why a job failed.
	Error string `json:"error,omitempty"`
	// Attempts counts the runs started; a transient failure requeues the
	// job until the configured maximum.
	Attempts int `json:"attempts"`

	CreatedAt  time.Time  `json:"createdAt"`
	StartedAt  *time.Time `json:"startedAt,omitempty"`
	FinishedAt *time.Time `json:"finishedAt,omitempty"`
	// NotBefore delays the next attempt after a transient failure.
	NotBefore *time.Time `json:"notBefore,omitempty"`
	// ExpiresAt is when the file of a done job is deleted.
	ExpiresAt *time.Time `json:"expiresAt,omitempty"`

	// FileKey names the file in the export file store; FileBytes is its
	// stored (compressed) size.
	FileKey   string `json:"fileKey,omitempty"`
	FileBytes int64  `json:"fileBytes,omitempty"`

	// Worker and LeaseUntil: the process running the job holds a lease it
	// renews; a running job whose lease ran out (its process died) is
	// taken up again by any worker.
	Worker     string     `json:"worker,omitempty"`
	LeaseUntil *time.Time `json:"leaseUntil,omitempty"`

	// Rev is the store's revision of the job, for compare-and-set updates;
	// opaque to everything but the store.
	Rev string `json:"-"`
}

// ExportJobQuery selects jobs. Zero fields select everything.
type ExportJobQuery struct {
	TenantID string
	OwnerID  string
	States   []ExportState
	// ExpiresBefore selects jobs whose ExpiresAt is before it.
	ExpiresBefore time.Time
	// Limit bounds the answer (default 100).
	Limit int
}

// ExportJobStore keeps export jobs.
type ExportJobStore interface {
	// CreateExportJob stores a new job and sets its Rev, unless its
	// tenant already has maxActive jobs queued or running: then it
	// returns TooManyExports. The count and the creation are one atomic
	// step, so concurrent creations never pass the limit together. It
	// returns ECONFLICT when the id exists.
	CreateExportJob(ctx context.Context, j *ExportJob, maxActive int) error
	// ExportJob returns the tenant's job, or ENOTFOUND when it does not
	// exist or belongs to another tenant (the two are indistinguishable).
	ExportJob(ctx context.Context, tenantID, id string) (ExportJob, error)
	// FindExportJobs returns the jobs matching q, oldest first.
	FindExportJobs(ctx context.Context, q ExportJobQuery) ([]ExportJob, error)
	// UpdateExportJob replaces the job when its Rev is still the stored
	// one, and sets the new Rev. It returns ECONFLICT when the job changed
	// since it was read, and ENOTFOUND when it does not exist.
	UpdateExportJob(ctx context.Context, j *ExportJob) error
}

// ExportFiles stores the files of export jobs.
type ExportFiles interface {
	// Put stores size bytes of r under key, durably, replacing any file of
	// that key.
	Put(ctx context.Context, key string, r io.Reader, size int64) error
	// Open reads the file of key; ENOTFOUND when there is none.
	Open(ctx context.Context, key string) (io.ReadCloser, error)
	// Delete removes the file of key; a missing file is not an error.
	Delete(ctx context.Context, key string) error
	// DownloadURL returns a URL that downloads the file directly, valid
	// for ttl, with filename as its attachment name, or ENOTSUPPORTED when
	// the store serves files only through Open.
	DownloadURL(ctx context.Context, key, filename string, ttl time.Duration) (string, error)
}

// ExportNotifier tells the owner of a job that it ended (done or failed).
type ExportNotifier interface {
	// NotifyExport sends the notice; an error means it was not sent.
	NotifyExport(ctx context.Context, j ExportJob) error
}

// TooManyExports is the refusal of a job over a tenant's limit of
// active (queued or running) jobs: ERATELIMIT.
func TooManyExports(active int) error {
	return Errorf(ERATELIMIT, "this tenant has %d exports queued or running, the most allowed; retry when one ends", active)
}
