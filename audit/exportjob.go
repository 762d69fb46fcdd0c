package audit

import (
	"fmt"
	"time"
)

// The state changes of an export job. Each sets every field the new state
// implies, so a job's fields always agree with its state; the job store's
// compare-and-set (Rev) decides which of two concurrent changes wins.

// Claimable tells whether a worker may claim j at now: queued and not
// delayed, or running under a lease that ran out (its worker died).
func (j *ExportJob) Claimable(now time.Time) bool {
	switch j.State {
	case ExportQueued:
		return j.NotBefore == nil || !now.Before(*j.NotBefore)
	case ExportRunning:
		return j.LeaseUntil == nil || !now.Before(*j.LeaseUntil)
	}
	return false
}

// Claim starts an attempt of j by worker, under a lease until now+lease:
// running, no rows yet, one more attempt.
func (j *ExportJob) Claim(worker string, now time.Time, lease time.Duration) {
	until := now.Add(lease)
	j.State, j.Worker, j.LeaseUntil, j.StartedAt, j.NotBefore = ExportRunning, worker, &until, &now, nil
	j.RowsWritten, j.Attempts = 0, j.Attempts+1
}

// Renew records progress and extends the lease of a running job.
func (j *ExportJob) Renew(rows int64, now time.Time, lease time.Duration) {
	until := now.Add(lease)
	j.RowsWritten, j.LeaseUntil = rows, &until
}

// Finish ends j as done with its stored file, kept until now+keep.
func (j *ExportJob) Finish(key string, size int64, now time.Time, keep time.Duration) {
	exp := now.Add(keep)
	j.State, j.FinishedAt, j.ExpiresAt, j.FileKey, j.FileBytes, j.LeaseUntil, j.Error = ExportDone, &now, &exp, key, size, nil, ""
}

// Fail ends j as failed with the reason.
func (j *ExportJob) Fail(reason string, now time.Time) {
	j.State, j.FinishedAt, j.LeaseUntil, j.Error = ExportFailed, &now, nil, reason
}

// Retry puts j back in the queue after a failed attempt, not to run before
// at, saying why.
func (j *ExportJob) Retry(at time.Time, reason string) {
	j.State, j.Worker, j.LeaseUntil, j.NotBefore, j.Error = ExportQueued, "", nil, &at, reason
}

// HandBack returns a claimed job to the queue at once without spending
// its attempt (the worker is shutting down).
func (j *ExportJob) HandBack() {
	j.State, j.Worker, j.LeaseUntil, j.Attempts = ExportQueued, "", nil, max(0, j.Attempts-1)
}

// Cancel ends a queued or running job, or withdraws the file of a done
// one, as cancelled at now; it returns the key of a file to delete ("" for
// none). It returns ECONFLICT for a job that ended otherwise (failed,
// expired); cancelling a cancelled job changes nothing.
func (j *ExportJob) Cancel(now time.Time) (string, error) {
	if j.State == ExportCancelled {
		return "", nil
	}
	if j.State.Final() && j.State != ExportDone {
		return "", Errorf(ECONFLICT, "export job %s is %s already", j.ID, j.State)
	}
	key := j.FileKey
	j.State, j.FinishedAt, j.FileKey, j.FileBytes, j.LeaseUntil = ExportCancelled, &now, "", 0, nil
	return key, nil
}

// Expire ends a done job whose file was deleted at its expiry.
func (j *ExportJob) Expire() {
	j.State, j.FileKey, j.FileBytes = ExportExpired, "", 0
}

// OutOfAttempts ends a job whose worker stopped after its last attempt.
func (j *ExportJob) OutOfAttempts(now time.Time) {
	reason := j.Error
	if reason == "" {
		reason = fmt.Sprintf("the export did not complete in %d attempts", j.Attempts)
	}
	j.Fail(reason, now)
}
