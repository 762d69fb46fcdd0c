package api

import (
	"context"
	"github.com/auditlog/auditlog/audit/vlog"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/seal"
)

// latestCheckpoint is the tenant's latest checkpoint note and when it was
// signed (or cosigned): with cosigned, the latest one witnesses cosigned;
// else the latest, with its cosignatures when it has them. Errors:
// ENOTFOUND for none yet, or no witnesses.
func (s *Server) latestCheckpoint(ctx context.Context, tenant string, cosigned bool) (string, time.Time, error) {
	var cos vlog.CosignedCheckpoint
	if s.logs.Cosigned != nil {
		var err error
		if cos, err = s.logs.Cosigned.CosignedCheckpoint(ctx, tenant); err != nil {
			return "", time.Time{}, err
		}
	}
	if cosigned {
		switch {
		case s.logs.Cosigned == nil:
			return "", time.Time{}, audit.Errorf(audit.ENOTFOUND, "this deployment has no witnesses (AUDITLOG_LOG_WITNESSES): no checkpoint is cosigned")
		case cos.Size == 0:
			return "", time.Time{}, audit.Errorf(audit.ENOTFOUND, "no checkpoint of the tenant's log is cosigned yet")
		}
		return cos.Note, cos.At, nil
	}
	ls, err := s.logs.Store.LogState(ctx, tenant)
	if err != nil {
		return "", time.Time{}, err
	}
	if ls.Checkpoint == "" {
		return "", time.Time{}, audit.Errorf(audit.ENOTFOUND, "the tenant's log has no checkpoint yet: no event sealed")
	}
	if cos.Holds(ls.Checkpoint) { // the same tree, cosigned
		return cos.Note, ls.SealedAt, nil
	}
	return ls.Checkpoint, ls.SealedAt, nil
}

// cosignedInclusion answers ?event=<id>&cosigned=true: the proof against
// the latest cosigned checkpoint, with it. Errors: ENOTFOUND while the
// event is in no cosigned checkpoint yet.
func (s *Server) cosignedInclusion(c *gin.Context, id string) {
	ctx, tenant := c.Request.Context(), principalOf(c).TenantID
	note, at, err := s.latestCheckpoint(ctx, tenant, true)
	var in seal.Inclusion
	if err == nil {
		var cp vlog.Checkpoint
		if cp, err = vlog.ParseCheckpoint(vlog.NoteText(note)); err == nil {
			in, err = seal.ProveInclusion(ctx, s.logs.Store, tenant, id, cp.Size)
		}
	}
	if audit.ErrorCode(err) == audit.EINVALID { // the event's leaf is past the cosigned tree
		err = audit.Errorf(audit.ENOTFOUND, "the event is in no cosigned checkpoint yet")
	}
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	c.JSON(http.StatusOK, InclusionView{EventID: id, LeafIndex: in.Leaf.Index, LeafHash: b64(in.Leaf.Hash), TreeSize: in.Size,
		RootHash: b64(in.Root), Proof: b64s(in.Proof), Checkpoint: note, CheckpointTime: audit.NewTimestamp(at)})
}

// cosignHealth is the cosigner's field of /healthz.
// sealHealth is /healthz's log: how many stored rows the sealer refused
// since this process started (unaccepted: no valid acceptance tag), and
// the latest by event id. Tenants are not named: /healthz needs no token.
func (s *Server) sealHealth() gin.H {
	if s.logs.Sealer == nil {
		return nil
	}
	n, latest := s.logs.Sealer.Unaccepted()
	rows := make([]gin.H, len(latest))
	for i, u := range latest {
		rows[i] = gin.H{"eventId": u.EventID, "reason": u.Reason, "at": u.At.UTC().Format(time.RFC3339)}
	}
	return gin.H{"unaccepted": n, "latestUnaccepted": rows}
}

func (s *Server) cosignHealth() gin.H {
	if s.logs.Cosigner == nil {
		return nil
	}
	return gin.H{"witnesses": len(s.logs.Witnesses), "lagSeconds": s.logs.Cosigner.Lag().Seconds()}
}
