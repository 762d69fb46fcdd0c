package exportjob

import (
	"context"
	"fmt"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// State is where an export job is in its life.
type State string

// The states of an export job: queued → running → done | failed, then
// expired when its file is deleted; cancelled when its owner deletes it.
const (
	Queued    State = "queued"
	Running   State = "running"
	Done      State = "done"
	Failed    State = "failed"
	Expired   State = "expired"
	Cancelled State = "cancelled"
)

// Final reports whether the job will not change any more by itself.
func (s State) Final() bool {
	return s == Done || s == Failed || s == Expired || s == Cancelled
}

// Format is the encoding of an export's file.
type Format string

// The export formats: CSV (audit.ExportColumns, RFC 4180) and JSON lines
// (one event per line, as GET /api/audit-logs/{id} shows it).
const (
	FormatCSV   Format = "csv"
	FormatJSONL Format = "jsonl"
)

// Valid reports whether f is a known format.
func (f Format) Valid() bool { return f == FormatCSV || f == FormatJSONL }

// Ext is the file extension of the format ("csv", "jsonl"); a job stored
// before formats existed ("") is CSV.
func (f Format) Ext() string {
	if f == "" {
		return string(FormatCSV)
	}
	return string(f)
}

// Owner is the user who asked for an export; only they see the job.
type Owner struct {
	UserID string `json:"userId"`
	Email  string `json:"email"`
	Role   string `json:"role"`
}

// Job is an asynchronous export. The stores persist it as JSON with
// these names.
type Job struct {
	ID       string `json:"id"`
	TenantID string `json:"tenantId"`
	Owner    Owner  `json:"owner"`
	// Reason is the declared reason of an operator-team export.
	Reason string `json:"reason,omitempty"`
	// Query is the request's query string, as the user gave it (shown
	// back); Filter and Sort are what runs. Filter.To is pinned at the
	// time of the request, so a retried or restarted job writes the same
	// rows.
	Query  string       `json:"query"`
	Filter audit.Filter `json:"filter"`
	Sort   audit.Sort   `json:"sort"`
	// Format is the file's encoding ("" before formats existed: CSV).
	Format Format `json:"format,omitempty"`

	State        State `json:"state"`
	RowsWritten  int64 `json:"rowsWritten"`
	RowsExpected int64 `json:"rowsExpected"`
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

// Query selects jobs. Zero fields select everything.
type Query struct {
	TenantID string
	OwnerID  string
	States   []State
	// ExpiresBefore selects jobs whose ExpiresAt is before it.
	ExpiresBefore time.Time
	// Limit bounds the answer (default 100).
	Limit int
	// NewestFirst orders the answer by creation, newest first (a user's
	// list of jobs, as downloads are); otherwise oldest first (the queue).
	NewestFirst bool
}

// Store keeps export jobs.
type Store interface {
	// CreateExportJob stores a new job and sets its Rev, unless its
	// tenant already has maxActive jobs queued or running: then it
	// returns TooManyExports. The count and the creation are one atomic
	// step, so concurrent creations never pass the limit together. It
	// returns ECONFLICT when the id exists.
	CreateExportJob(ctx context.Context, j *Job, maxActive int) error
	// Job returns the tenant's job, or ENOTFOUND when it does not
	// exist or belongs to another tenant (the two are indistinguishable).
	ExportJob(ctx context.Context, tenantID, id string) (Job, error)
	// FindExportJobs returns the jobs matching q, oldest first.
	FindExportJobs(ctx context.Context, q Query) ([]Job, error)
	// UpdateExportJob replaces the job when its Rev is still the stored
	// one, and sets the new Rev. It returns ECONFLICT when the job changed
	// since it was read, and ENOTFOUND when it does not exist.
	UpdateExportJob(ctx context.Context, j *Job) error
}

// TooManyExports is the refusal of a job over a tenant's limit of
// active (queued or running) jobs: ERATELIMIT.
func TooManyExports(active int) error {
	return audit.Errorf(audit.ERATELIMIT, "this tenant has %d exports queued or running, the most allowed; retry when one ends", active)
}

// The state changes of an export job. Each sets every field the new state
// implies, so a job's fields always agree with its state; the job store's
// compare-and-set (Rev) decides which of two concurrent changes wins.

// Claimable tells whether a worker may claim j at now: queued and not
// delayed, or running under a lease that ran out (its worker died).
func (j *Job) Claimable(now time.Time) bool {
	switch j.State {
	case Queued:
		return j.NotBefore == nil || !now.Before(*j.NotBefore)
	case Running:
		return j.LeaseUntil == nil || !now.Before(*j.LeaseUntil)
	}
	return false
}

// Claim starts an attempt of j by worker, under a lease until now+lease:
// running, no rows yet, one more attempt.
func (j *Job) Claim(worker string, now time.Time, lease time.Duration) {
	until := now.Add(lease)
	j.State, j.Worker, j.LeaseUntil, j.StartedAt, j.NotBefore = Running, worker, &until, &now, nil
	j.RowsWritten, j.Attempts = 0, j.Attempts+1
}

// Renew records progress and extends the lease of a running job.
func (j *Job) Renew(rows int64, now time.Time, lease time.Duration) {
	until := now.Add(lease)
	j.RowsWritten, j.LeaseUntil = rows, &until
}

// Finish ends j as done with its stored file, kept until now+keep.
func (j *Job) Finish(key string, size int64, now time.Time, keep time.Duration) {
	exp := now.Add(keep)
	j.State, j.FinishedAt, j.ExpiresAt, j.FileKey, j.FileBytes, j.LeaseUntil, j.Error = Done, &now, &exp, key, size, nil, ""
}

// Fail ends j as failed with the reason.
func (j *Job) Fail(reason string, now time.Time) {
	j.State, j.FinishedAt, j.LeaseUntil, j.Error = Failed, &now, nil, reason
}

// Retry puts j back in the queue after a failed attempt, not to run before
// at, saying why.
func (j *Job) Retry(at time.Time, reason string) {
	j.State, j.Worker, j.LeaseUntil, j.NotBefore, j.Error = Queued, "", nil, &at, reason
}

// HandBack returns a claimed job to the queue at once without spending
// its attempt (the worker is shutting down).
func (j *Job) HandBack() {
	j.State, j.Worker, j.LeaseUntil, j.Attempts = Queued, "", nil, max(0, j.Attempts-1)
}

// Cancel ends a queued or running job, or withdraws the file of a done
// one, as cancelled at now; it returns the key of a file to delete ("" for
// none). It returns ECONFLICT for a job that ended otherwise (failed,
// expired); cancelling a cancelled job changes nothing.
func (j *Job) Cancel(now time.Time) (string, error) {
	if j.State == Cancelled {
		return "", nil
	}
	if j.State.Final() && j.State != Done {
		return "", audit.Errorf(audit.ECONFLICT, "export job %s is %s already", j.ID, j.State)
	}
	key := j.FileKey
	j.State, j.FinishedAt, j.FileKey, j.FileBytes, j.LeaseUntil = Cancelled, &now, "", 0, nil
	return key, nil
}

// Expire ends a done job whose file was deleted at its expiry.
func (j *Job) Expire() {
	j.State, j.FileKey, j.FileBytes = Expired, "", 0
}

// OutOfAttempts ends a job whose worker stopped after its last attempt.
func (j *Job) OutOfAttempts(now time.Time) {
	reason := j.Error
	if reason == "" {
		reason = fmt.Sprintf("the export did not complete in %d attempts", j.Attempts)
	}
	j.Fail(reason, now)
}

// Notifier tells the owner of a job that it ended (done or failed).
type Notifier interface {
	// NotifyExport sends the notice; an error means it was not sent.
	NotifyExport(ctx context.Context, j Job) error
}
