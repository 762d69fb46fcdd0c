package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/auditlog/auditlog/audit/vlog"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/auditlog/auditlog/logapi"
	"github.com/auditlog/auditlog/seal"
)

// Verifiers that read checkpoints a tenant holds (a periodic export's
// digests, a stream's batches and manifests) keep the largest one they
// verified, as log verify does (seal.Memory, --state), and refuse a
// rollback by name (issue 53). A carried checkpoint may be older than the
// kept one (an export lags the log): that is no rollback, but the two
// must be one history: of one size, one root; and, with --api, the
// service's consistency proof must join them, and the log the service
// shows now must be no smaller than either and extend them.

// carried is a checkpoint a copy under test carried, verified with the
// log's key, and its signed note.
type carried struct {
	cp     vlog.Checkpoint
	signed []byte
}

// checkCarried checks cp against the checkpoint kept for its log and,
// with --api (and the token), against the log the service shows now; it
// returns the problems (each a rollback, named) and keeps the largest
// checkpoint verified when there are none.
func (a *verifyArgs) checkCarried(ctx context.Context, keys vlog.Keys, c carried) ([]string, error) {
	mem := seal.Memory{}
	if a.state != "" && a.state != "none" {
		mem.Dir = a.state
	}
	kept, ok, err := mem.Kept(c.cp.Origin, keys)
	if err != nil {
		return nil, fmt.Errorf("--state: %w", err)
	}
	var api *logapi.Client
	if a.api != "" && a.token != "" {
		api = &logapi.Client{Base: a.api, Token: a.token, HTTP: &http.Client{Timeout: time.Minute}}
	}
	var problems []string
	largest := c
	if ok {
		if p := joined(ctx, api, kept, c.cp); p != "" {
			problems = append(problems, "ROLLBACK the checkpoint carried and the one verified before: "+p)
		}
		if kept.Size > c.cp.Size {
			largest = carried{cp: kept}
		}
	}
	if api != nil {
		live, signed, err := liveCheckpoint(ctx, api, keys)
		if err != nil {
			return nil, err
		}
		switch {
		case live.Size < largest.cp.Size:
			problems = append(problems, fmt.Sprintf("ROLLBACK the log the service shows has %d leaves, and %d were verified or carried (an older copy of the store)", live.Size, largest.cp.Size))
		default:
			if p := joined(ctx, api, largest.cp, live); p != "" {
				problems = append(problems, "ROLLBACK the log the service shows and the checkpoint verified or carried: "+p)
			}
			largest = carried{cp: live, signed: signed}
		}
	}
	if len(problems) > 0 {
		return problems, nil
	}
	if largest.signed == nil {
		largest = c
	}
	return nil, mem.Keep(largest.cp, largest.signed, keys)
}

// joined says how a and b are not one history ("" when they are, or
// when without a proof nothing more can be known): of one size, one
// root; of two, the service's consistency proof from the smaller to the
// larger must verify against both roots.
func joined(ctx context.Context, api *logapi.Client, a, b vlog.Checkpoint) string {
	if a.Size > b.Size {
		a, b = b, a
	}
	switch {
	case a.Size == b.Size && a.Root != b.Root:
		return fmt.Sprintf("two trees of %d leaves with other roots (a fork)", a.Size)
	case a.Size == b.Size || api == nil || a.Size == 0:
		return ""
	}
	proof, err := api.Consistency(ctx, a.Size, b.Size)
	if err == nil {
		err = tlog.CheckTree(proof, b.Size, b.Root, a.Size, a.Root)
	}
	if err != nil {
		return fmt.Sprintf("the tree of %d leaves does not extend the one of %d (%v)", b.Size, a.Size, err)
	}
	return ""
}

// liveCheckpoint is the service's latest checkpoint, verified with keys.
func liveCheckpoint(ctx context.Context, api *logapi.Client, keys vlog.Keys) (vlog.Checkpoint, []byte, error) {
	signed, err := api.SignedCheckpoint(ctx, false)
	if err != nil {
		return vlog.Checkpoint{}, nil, fmt.Errorf("the log's checkpoint from %s: %w", api.Base, err)
	}
	cp, err := keys.LogOnly().Open(signed)
	return cp, signed, err
}
