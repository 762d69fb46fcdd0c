// Package witness remembers tenants' log checkpoints and checks that each
// new one extends the last it saw (auditlog witness). A log's operator
// can rewrite history and sign the result with its own key: the signature
// alone cannot tell. A witness that kept an earlier signed checkpoint can:
// a later tree must contain the earlier one, which a consistency proof
// shows (tlog.CheckTree). The witness reads the service's public API only
// (GET /api/log/checkpoint and /api/log/consistency with a tenant's
// token), keeps the last good checkpoint of each log in a directory of
// its own, and raises an Alarm on a fork (the same size with another
// root, or a later tree that does not extend the kept one) or a rollback
// (a smaller tree: a rollback or a truncation). It never replaces the
// kept checkpoint with one that raised an alarm, and writes both signed
// checkpoints into an evidence file: two checkpoints signed by one key
// that no consistency proof joins are the proof of the operator's fault.
package witness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/auditlog/auditlog/audit/vlog"
	"net/http"
	"os"
	"regexp"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/atomicfile"
	"github.com/auditlog/auditlog/logapi"
)

// Alarm is a checkpoint that does not extend the one the witness kept.
type Alarm struct {
	Kind     string // fork or rollback
	Origin   string
	Kept     vlog.Checkpoint
	Seen     vlog.Checkpoint
	Detail   string
	Evidence string // the evidence file
}

func (a *Alarm) Error() string {
	return fmt.Sprintf("%s of %s: kept %d leaves (root %s), now %d leaves (root %s): %s; evidence in %s",
		a.Kind, a.Origin, a.Kept.Size, a.Kept.Root, a.Seen.Size, a.Seen.Root, a.Detail, a.Evidence)
}

// Result is one successful check.
type Result struct {
	Checkpoint vlog.Checkpoint
	// Previous is the size kept before (0: the first checkpoint seen).
	Previous int64
}

// Witness checks one service's logs against its directory.
type Witness struct {
	API string // the service's base URL
	// Keys are the pinned checkpoint keys (several across a rotation);
	// their name is the deployment's origin, so a tenant's log is
	// <name>/tenants/<tenant>.
	Keys   vlog.Keys
	Dir    string
	Client *http.Client
}

// Check fetches the latest checkpoint of the tenant's log with the
// tenant's token, checks its signature and its origin, and that it
// extends the kept one, and keeps it. A log that answers no checkpoint
// after one was kept raises a rollback. Errors: an *Alarm on a fork or a
// rollback; otherwise the check could not be made (the service
// unreachable, a checkpoint that does not verify with the pinned key or
// is another log's) and may be tried again.
func (w *Witness) Check(ctx context.Context, tenant, token string) (Result, error) {
	origin := vlog.Origin(w.Keys.Name(), tenant)
	path, err := w.statePath(origin)
	if err != nil {
		return Result{}, err
	}
	signed, err := w.client(token).SignedCheckpoint(ctx, w.Keys.Cosigned())
	refused := err
	if err != nil && audit.ErrorCode(err) != audit.ENOTFOUND {
		return Result{}, err
	}
	cp := vlog.Checkpoint{Origin: origin} // none: the log has no checkpoint (404)
	if err == nil {
		if cp, err = w.open(signed); err != nil {
			return Result{}, fmt.Errorf("the service's checkpoint: %w", err)
		}
		if cp.Origin != origin {
			return Result{}, fmt.Errorf("the service answered the checkpoint of %s, not of %s: is the token the tenant's?", cp.Origin, origin)
		}
	}
	if signed != nil && w.Keys.Cosigned() {
		if alarm := w.againstLatest(ctx, token, path, cp, signed); alarm != nil {
			return Result{}, alarm
		}
	}
	keptSigned, err := os.ReadFile(path)
	switch {
	case os.IsNotExist(err) && signed == nil:
		return Result{}, fmt.Errorf("the log of %s has no checkpoint yet (%v)", tenant, refused)
	case os.IsNotExist(err):
		return Result{Checkpoint: cp}, w.keep(path, signed)
	case err != nil:
		return Result{}, err
	}
	kept, err := w.open(keptSigned)
	if err != nil {
		return Result{}, fmt.Errorf("the kept checkpoint %s: %w", path, err)
	}
	if alarm := w.compare(ctx, token, kept, cp); alarm != nil {
		alarm.Evidence = path + "." + alarm.Kind + "-" + time.Now().UTC().Format("20060102T150405Z") + ".evidence"
		body := append(append(append([]byte("kept:\n"), keptSigned...), "\nseen:\n"...), signed...)
		if _, err := atomicfile.Write(alarm.Evidence, bytes.NewReader(body), -1); err != nil {
			alarm.Evidence = "(not written: " + err.Error() + ")"
		}
		return Result{}, alarm
	}
	if cp.Size > kept.Size {
		if err := w.keep(path, signed); err != nil {
			return Result{}, err
		}
	}
	return Result{Checkpoint: cp, Previous: kept.Size}, nil
}

// againstLatest checks, when the witness requires cosignatures, that the
// log's latest checkpoint (signed by the log alone) extends the latest
// one the witnesses cosigned: a log that rewrote its history after their
// last cosignature shows a tree that does not, even to a witness that
// kept nothing. A latest checkpoint it cannot read or verify is no alarm
// (the check is made again next time).
func (w *Witness) againstLatest(ctx context.Context, token, path string, cosigned vlog.Checkpoint, cosignedNote []byte) *Alarm {
	latestNote, err := w.client(token).SignedCheckpoint(ctx, false)
	if err != nil {
		return nil
	}
	latest, err := w.Keys.LogOnly().Open(latestNote)
	if err != nil || latest.Origin != cosigned.Origin {
		return nil
	}
	alarm := w.compare(ctx, token, cosigned, latest)
	if alarm == nil {
		return nil
	}
	alarm.Detail = "the log's latest tree against the one witnesses cosigned: " + alarm.Detail
	alarm.Evidence = path + "." + alarm.Kind + "-" + time.Now().UTC().Format("20060102T150405Z") + ".evidence"
	body := append(append(append([]byte("cosigned:\n"), cosignedNote...), "\nlatest:\n"...), latestNote...)
	if _, err := atomicfile.Write(alarm.Evidence, bytes.NewReader(body), -1); err != nil {
		alarm.Evidence = "(not written: " + err.Error() + ")"
	}
	return alarm
}

// open verifies a signed checkpoint with the pinned key and parses it.
func (w *Witness) open(signed []byte) (vlog.Checkpoint, error) {
	return w.Keys.Open(signed)
}

// compare returns the alarm cp raises against kept, nil when cp extends
// it. A proof the service fails to give for a transient reason is no
// alarm: compare answers one only for a proof refused (4xx) or wrong.
func (w *Witness) compare(ctx context.Context, token string, kept, cp vlog.Checkpoint) *Alarm {
	a := &Alarm{Origin: kept.Origin, Kept: kept, Seen: cp}
	switch {
	case cp.Size < kept.Size:
		a.Kind, a.Detail = "rollback", "the log is smaller than a checkpoint it signed before (rolled back or truncated)"
		return a
	case cp.Size == kept.Size && cp.Root != kept.Root:
		a.Kind, a.Detail = "fork", "two trees of one size with different roots, both signed"
		return a
	case cp.Size == kept.Size:
		return nil
	}
	proof, err := w.client(token).Consistency(ctx, kept.Size, cp.Size)
	var refused *logapi.Refusal
	if err != nil && !errors.As(err, &refused) {
		return nil
	}
	a.Kind = "fork"
	if err != nil {
		a.Detail = "the service refuses to prove that the new tree extends the kept one: " + err.Error()
		return a
	}
	if err := tlog.CheckTree(proof, cp.Size, cp.Root, kept.Size, kept.Root); err != nil {
		a.Detail = "the new tree does not extend the kept one: " + err.Error()
		return a
	}
	return nil
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// statePath is the file that keeps a log's last good checkpoint: its
// origin with every run of other characters made one "_".
func (w *Witness) statePath(origin string) (string, error) {
	return atomicfile.Below(w.Dir, unsafeChars.ReplaceAllString(origin, "_")+".checkpoint")
}

func (w *Witness) keep(path string, signed []byte) error {
	_, err := atomicfile.Write(path, bytes.NewReader(signed), int64(len(signed)))
	return err
}

// client is the service read with the tenant's token.
func (w *Witness) client(token string) logapi.Client {
	return logapi.Client{Base: w.API, Token: token, HTTP: w.Client}
}
