package elasticsearch

import (
	"context"
	"github.com/auditlog/auditlog/audit/vlog"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// cosignedDoc is a tenant's latest cosigned checkpoint, a document of the
// log index.
type cosignedDoc struct {
	Kind     string `json:"kind"`
	TenantID string `json:"tenantId"`
	Size     int64  `json:"size"`
	Note     string `json:"note"`
	At       int64  `json:"at"` // Unix milliseconds, as the index maps at
}

func (d cosignedDoc) checkpoint() vlog.CosignedCheckpoint {
	if d.Size == 0 {
		return vlog.CosignedCheckpoint{}
	}
	return vlog.CosignedCheckpoint{Size: d.Size, Note: d.Note, At: time.UnixMilli(d.At).UTC()}
}

func cosignedID(tenant string) string { return "cosigned:" + tenant }

// CosignedCheckpoint implements vlog.CosignStore.
func (s *Store) CosignedCheckpoint(ctx context.Context, tenantID string) (vlog.CosignedCheckpoint, error) {
	d, _, _, err := getDoc[cosignedDoc](ctx, s, s.TlogIndex(), cosignedID(tenantID), "the cosigned checkpoint of "+tenantID)
	return d.checkpoint(), err
}

// maxCosignWriters bounds SaveCosigned's attempts. Each lost attempt
// means another writer's save went through, and a writer that saved
// returns: with fewer concurrent writers than this, every save ends.
// (Five attempts were too few for the eight concurrent writers of the
// conformance suite on a loaded machine.)
const maxCosignWriters = 64

// SaveCosigned implements vlog.CosignStore by compare-and-set on the
// document's revision: a writer that lost reads the winner's and tries
// again, while c still replaces it.
func (s *Store) SaveCosigned(ctx context.Context, tenantID string, c vlog.CosignedCheckpoint) error {
	what := "the cosigned checkpoint of " + tenantID
	doc := cosignedDoc{Kind: "cosigned", TenantID: tenantID, Size: c.Size, Note: c.Note, At: c.At.UnixMilli()}
	for attempt := 0; attempt < maxCosignWriters; attempt++ {
		old, rev, found, err := getDoc[cosignedDoc](ctx, s, s.TlogIndex(), cosignedID(tenantID), what)
		if err != nil {
			return err
		}
		if !c.Replaces(old.checkpoint()) {
			return nil
		}
		if !found {
			if _, created, err := s.createDoc(ctx, s.TlogIndex(), cosignedID(tenantID), what, doc, false); err != nil || created {
				return err
			}
			continue
		}
		_, err = s.casPut(ctx, s.TlogIndex(), cosignedID(tenantID), rev, what, doc, false, nil)
		if audit.ErrorCode(err) != audit.ECONFLICT {
			return err
		}
	}
	return audit.Errorf(audit.EUNAVAILABLE, "%s: too many concurrent writers", what)
}
