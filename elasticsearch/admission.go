package elasticsearch

import (
	"context"
	"time"

	"github.com/auditlog/auditlog/audit/exportjob"

	"github.com/auditlog/auditlog/audit"
)

// ExportAdmissionIndex holds one document per tenant listing its active
// (queued or running) export jobs. It changes only by compare-and-set,
// which makes "count the active jobs, then create one" atomic: two
// concurrent creations cannot both see room for one more, as they could
// with a search followed by a create.
func (s *Store) ExportAdmissionIndex() string { return s.prefix() + "-export-admission" }

// maxAdmissionRounds bounds the compare-and-set retries of one admission
// (each lost round means another creation of the tenant went through).
const maxAdmissionRounds = 50

type admission struct {
	Jobs []admitted `json:"jobs"`
}

// admitted is a job given a place at At: until admissionGrace has passed,
// a job not created yet keeps its place (its creation follows its
// admission); after it, a job still missing was never created (a crash
// between the two) and its place is freed.
type admitted struct {
	ID string    `json:"id"`
	At time.Time `json:"at"`
}

const admissionGrace = time.Minute

// admitExportJob reserves a place for job id among the tenant's
// maxActive active jobs. The listed jobs that are no longer active (ended,
// or never created after a crash between admission and creation) are
// dropped first. Errors: exportjob.TooManyExports, EUNAVAILABLE.
func (s *Store) admitExportJob(ctx context.Context, tenant, id string, maxActive int) error {
	what := "the export admission of tenant " + tenant
	for range maxAdmissionRounds {
		cur, rev, _, err := getDoc[admission](ctx, s, s.ExportAdmissionIndex(), tenant, what)
		if err != nil {
			return err
		}
		active, err := s.stillActive(ctx, tenant, cur.Jobs)
		if err != nil {
			return err
		}
		if len(active) >= maxActive {
			return exportjob.TooManyExports(len(active))
		}
		next := admission{Jobs: append(active, admitted{ID: id, At: s.cfg.Now().UTC()})}
		if rev == "" {
			_, created, err := s.createDoc(ctx, s.ExportAdmissionIndex(), tenant, what, next, true)
			if err != nil || created {
				return err
			}
			continue
		}
		_, err = s.putIfUnchanged(ctx, s.ExportAdmissionIndex(), tenant, rev, what, next, nil)
		if audit.ErrorCode(err) == audit.ECONFLICT {
			continue
		}
		return err
	}
	return audit.Errorf(audit.EUNAVAILABLE, "too many concurrent exports of tenant %s; retry", tenant)
}

// stillActive keeps the listed jobs that are queued or running, or
// admitted within admissionGrace and not created yet.
func (s *Store) stillActive(ctx context.Context, tenant string, jobs []admitted) ([]admitted, error) {
	var out []admitted
	for _, a := range jobs {
		j, err := s.ExportJob(ctx, tenant, a.ID)
		switch {
		case audit.ErrorCode(err) == audit.ENOTFOUND:
			if s.cfg.Now().Sub(a.At) < admissionGrace {
				out = append(out, a)
			}
		case err != nil:
			return nil, err
		case j.State == exportjob.Queued || j.State == exportjob.Running:
			out = append(out, a)
		}
	}
	return out, nil
}
