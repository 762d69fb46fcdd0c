package export

import (
	"context"
	"io"
	"strings"

	"github.com/auditlog/auditlog/audit/exportjob"

	"github.com/google/uuid"

	"github.com/auditlog/auditlog/audit"
)

// The jobs of a user: submit, look up, list, cancel and download.

// Request is what an asynchronous export is asked with.
type Request struct {
	Principal audit.Principal
	Query     string
	Filter    audit.Filter
	Sort      audit.Sort
	Format    exportjob.Format
	// Expected is the count of rows at the time of the request.
	Expected int64
}

// Submit queues a job for the principal's tenant. It returns ERATELIMIT
// when the tenant has MaxActivePerTenant jobs queued or running already.
func (s *Service) Submit(ctx context.Context, r Request) (exportjob.Job, error) {
	p := r.Principal
	j := exportjob.Job{
		ID: uuid.NewString(), TenantID: p.TenantID,
		Owner:  exportjob.Owner{UserID: p.UserID, Email: p.Email, Role: p.Role},
		Reason: p.Reason, Query: r.Query, Filter: r.Filter, Sort: r.Sort, Format: r.Format,
		State: exportjob.Queued, RowsExpected: r.Expected, CreatedAt: s.deps.Now().UTC(),
	}
	if err := s.deps.Jobs.CreateExportJob(ctx, &j, s.cfg.MaxActivePerTenant); err != nil {
		return exportjob.Job{}, err
	}
	s.log.InfoContext(ctx, "export job queued", "job", j.ID, "tenant", j.TenantID, "expected", j.RowsExpected)
	return j, nil
}

// Job returns a job of the principal: ENOTFOUND for a job of another
// tenant or another user, exactly as for one that does not exist.
func (s *Service) Job(ctx context.Context, p audit.Principal, id string) (exportjob.Job, error) {
	if _, err := uuid.Parse(id); err != nil {
		return exportjob.Job{}, audit.Errorf(audit.ENOTFOUND, "no export job %s", id)
	}
	j, err := s.deps.Jobs.ExportJob(ctx, p.TenantID, id)
	if err != nil {
		return exportjob.Job{}, err
	}
	if j.Owner.UserID != p.UserID || !strings.EqualFold(j.TenantID, p.TenantID) {
		return exportjob.Job{}, audit.Errorf(audit.ENOTFOUND, "no export job %s", id)
	}
	return j, nil
}

// Jobs lists the principal's jobs, oldest first.
func (s *Service) Jobs(ctx context.Context, p audit.Principal, limit int) ([]exportjob.Job, error) {
	return s.deps.Jobs.FindExportJobs(ctx, exportjob.Query{TenantID: p.TenantID, OwnerID: p.UserID, Limit: limit, NewestFirst: true})
}

// Cancel cancels a queued or running job, or deletes the file of a done
// one; the job ends as cancelled. A running job stops at its next
// progress update.
func (s *Service) Cancel(ctx context.Context, p audit.Principal, id string) (exportjob.Job, error) {
	for {
		j, err := s.Job(ctx, p, id)
		if err != nil {
			return j, err
		}
		if j.State == exportjob.Cancelled {
			return j, nil
		}
		key, err := j.Cancel(s.deps.Now().UTC())
		if err != nil {
			return j, err
		}
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
		s.jobsEnded.WithLabelValues(string(exportjob.Cancelled)).Inc()
		return j, nil
	}
}

// Download is how a finished file is fetched: a presigned URL when the
// file store has them, else a reader.
type Download struct {
	URL    string
	Body   io.ReadCloser    // gzip-compressed CSV or JSON lines
	Name   string           // the attachment's file name
	Format exportjob.Format // the file's encoding
	Size   int64            // compressed size
}

// Open returns the download of the principal's done job. It returns
// ECONFLICT when the job has no file (not done yet, failed, expired or
// cancelled), saying which.
func (s *Service) Open(ctx context.Context, p audit.Principal, id string) (Download, error) {
	j, err := s.Job(ctx, p, id)
	if err != nil {
		return Download{}, err
	}
	if j.State != exportjob.Done || j.FileKey == "" {
		return Download{}, audit.Errorf(audit.ECONFLICT, "export job %s is %s: there is no file to download", id, j.State)
	}
	d := Download{Name: FileName(j), Format: j.Format, Size: j.FileBytes}
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

// FileName is the attachment name of a job's file: see Name.
func FileName(j exportjob.Job) string { return Name(j.Filter, j.Query, j.Format, j.ID) }

// FileKey is where a job's file is stored.
func FileKey(j exportjob.Job) string {
	return "exports/" + j.TenantID + "/" + j.ID + "." + j.Format.Ext() + ".gz"
}
