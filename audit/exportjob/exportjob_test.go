package exportjob

import (
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// TestExportJobLife walks a job through every state change and checks
// that each sets all the fields its state implies.
func TestExportJobLife(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	j := Job{ID: "j", State: Queued}
	if !j.Claimable(t0) {
		t.Fatal("a queued job is not claimable")
	}
	j.Claim("w1", t0, 30*time.Second)
	if j.State != Running || j.Worker != "w1" || j.Attempts != 1 || !j.LeaseUntil.Equal(t0.Add(30*time.Second)) || !j.StartedAt.Equal(t0) {
		t.Fatalf("claimed: %+v", j)
	}
	if j.Claimable(t0.Add(29*time.Second)) || !j.Claimable(t0.Add(30*time.Second)) {
		t.Fatal("a running job is claimable only once its lease ran out")
	}
	j.Renew(500, t0.Add(20*time.Second), 30*time.Second)
	if j.RowsWritten != 500 || !j.LeaseUntil.Equal(t0.Add(50*time.Second)) {
		t.Fatalf("renewed: %+v", j)
	}
	j.Retry(t0.Add(time.Minute), "attempt 1 of 3 failed")
	if j.State != Queued || j.Worker != "" || j.LeaseUntil != nil || j.Claimable(t0.Add(59*time.Second)) || !j.Claimable(t0.Add(time.Minute)) {
		t.Fatalf("retried: %+v", j)
	}
	j.Claim("w2", t0.Add(time.Minute), 30*time.Second)
	if j.Attempts != 2 || j.RowsWritten != 0 || j.NotBefore != nil {
		t.Fatalf("second claim: %+v", j)
	}
	j.HandBack()
	if j.State != Queued || j.Attempts != 1 || j.LeaseUntil != nil {
		t.Fatalf("handed back: %+v", j)
	}
	j.Claim("w2", t0.Add(2*time.Minute), 30*time.Second)
	j.Finish("k", 1234, t0.Add(3*time.Minute), 7*24*time.Hour)
	if j.State != Done || j.FileKey != "k" || j.FileBytes != 1234 || j.Error != "" || j.LeaseUntil != nil || !j.ExpiresAt.Equal(t0.Add(3*time.Minute+7*24*time.Hour)) {
		t.Fatalf("finished: %+v", j)
	}
	if j.Claimable(t0.Add(time.Hour)) {
		t.Fatal("a done job is claimable")
	}
	done := j
	key, err := j.Cancel(t0.Add(4 * time.Minute))
	if err != nil || key != "k" || j.State != Cancelled || j.FileKey != "" || j.FileBytes != 0 {
		t.Fatalf("cancelled a done job: %q %v %+v", key, err, j)
	}
	if key, err := j.Cancel(t0.Add(5 * time.Minute)); err != nil || key != "" {
		t.Fatalf("cancelling twice: %q %v", key, err)
	}
	done.Expire()
	if done.State != Expired || done.FileKey != "" {
		t.Fatalf("expired: %+v", done)
	}
	if _, err := done.Cancel(t0); audit.ErrorCode(err) != audit.ECONFLICT {
		t.Fatalf("cancelling an expired job: %v", err)
	}
}

// TestExportJobFailures: a failure keeps its reason; a job out of
// attempts keeps the last attempt's reason or says it ran out.
func TestExportJobFailures(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	j := Job{State: Running, Attempts: 3}
	j.Fail("the store refused the query", now)
	if j.State != Failed || j.Error != "the store refused the query" || !j.FinishedAt.Equal(now) {
		t.Fatalf("failed: %+v", j)
	}
	k := Job{State: Running, Attempts: 3}
	k.OutOfAttempts(now)
	if k.State != Failed || k.Error != "the export did not complete in 3 attempts" {
		t.Fatalf("out of attempts: %+v", k)
	}
	l := Job{State: Running, Attempts: 3, Error: "attempt 2 of 3 failed (timeout)"}
	l.OutOfAttempts(now)
	if l.Error != "attempt 2 of 3 failed (timeout)" {
		t.Fatalf("the last reason is lost: %+v", l)
	}
	if _, err := j.Cancel(now); audit.ErrorCode(err) != audit.ECONFLICT {
		t.Fatalf("cancelling a failed job: %v", err)
	}
}
