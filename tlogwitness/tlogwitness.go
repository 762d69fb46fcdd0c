// Package tlogwitness asks witnesses to cosign checkpoints by the C2SP
// tlog-witness protocol (https://c2sp.org/tlog-witness): POST
// <witness>/add-checkpoint with the size the witness last saw, a
// consistency proof from it, and the signed checkpoint; the witness
// checks the log's signature and the proof, and answers its cosignature
// (C2SP tlog-cosignature, cosignature/v1), which is checked here against
// the witness's pinned key before anyone publishes it. It is the client
// side only; the witnesses are independent programs (litewitness, or any
// implementation of the protocol).
package tlogwitness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// Witness is one witness: where it listens and the key its cosignatures
// verify with (vlog.ParseWitnessKey).
type Witness struct {
	URL  string
	Key  note.Verifier
	HTTP *http.Client // nil: a client with a 10 s timeout
}

// ConflictError is the witness's answer when the size it last saw for
// the log is not the one sent (409): ask again with a proof from Known.
type ConflictError struct{ Known int64 }

func (e *ConflictError) Error() string {
	return fmt.Sprintf("the witness knows the log at size %d", e.Known)
}

// ErrRefused is a witness's refusal (403: it does not know the log or
// its key; 422: the proof does not show the new tree extends the old
// one). It is not retried with the same checkpoint.
var ErrRefused = errors.New("the witness refused the checkpoint")

// AddCheckpoint submits signed (a checkpoint note) with the proof that it
// extends the tree of size old, and returns the witness's cosignature
// line ("— <name> <base64>\n"), verified with w.Key. Errors:
// *ConflictError, ErrRefused (wrapped, with the witness's words), or an
// error of the network or of a cosignature that does not verify.
func (w Witness) AddCheckpoint(ctx context.Context, old int64, proof tlog.TreeProof, signed []byte) ([]byte, error) {
	var body bytes.Buffer
	fmt.Fprintf(&body, "old %d\n", old)
	for _, h := range proof {
		fmt.Fprintf(&body, "%s\n", h)
	}
	body.WriteString("\n")
	body.Write(signed)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(w.URL, "/")+"/add-checkpoint", &body)
	if err != nil {
		return nil, err
	}
	hc := w.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 10 * time.Second}
	}
	res, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	if err != nil {
		return nil, err
	}
	switch res.StatusCode {
	case http.StatusOK:
	case http.StatusConflict:
		known, err := strconv.ParseInt(strings.TrimSpace(string(answer)), 10, 64)
		if err != nil || known < 0 {
			return nil, fmt.Errorf("%s: 409 without a size: %q", w.URL, answer)
		}
		return nil, &ConflictError{Known: known}
	case http.StatusForbidden, http.StatusUnprocessableEntity, http.StatusBadRequest, http.StatusNotFound:
		return nil, fmt.Errorf("%w: %s answered %d: %s", ErrRefused, w.URL, res.StatusCode, strings.TrimSpace(string(answer)))
	default:
		return nil, fmt.Errorf("%s answered %d: %s", w.URL, res.StatusCode, strings.TrimSpace(string(answer)))
	}
	return w.checkCosignature(signed, answer)
}

// checkCosignature returns the line of answer that is w.Key's valid
// signature of the checkpoint in signed.
func (w Witness) checkCosignature(signed, answer []byte) ([]byte, error) {
	text, _, ok := bytes.Cut(signed, []byte("\n\n"))
	if !ok {
		return nil, errors.New("the checkpoint is no signed note")
	}
	for _, line := range bytes.SplitAfter(answer, []byte("\n")) {
		if len(line) == 0 || line[len(line)-1] != '\n' {
			continue
		}
		n, err := note.Open(append(append(append([]byte{}, text...), "\n\n"...), line...), note.VerifierList(w.Key))
		if err == nil && len(n.Sigs) == 1 {
			return line, nil
		}
	}
	return nil, fmt.Errorf("%s answered no valid cosignature by %s: %q", w.URL, w.Key.Name(), answer)
}

// Latest asks the witness the size of the latest checkpoint of signed's
// log it cosigned, by the protocol alone: signed (a checkpoint of size)
// is submitted as extending itself (old = size, no proof), which changes
// nothing at a witness; a witness at another size answers 409 with its
// size, one at this size with this root cosigns it again. A 409 at this
// very size means the witness cosigned another tree of it (fork true).
// A verifier with no state of its own so learns whether a log shows less
// than its witnesses cosigned (a rollback). Errors: ErrRefused (the
// witness does not know the log or its key), the network's.
func (w Witness) Latest(ctx context.Context, signed []byte, size int64) (latest int64, fork bool, err error) {
	_, err = w.AddCheckpoint(ctx, size, nil, signed)
	var conflict *ConflictError
	switch {
	case err == nil:
		return size, false, nil
	case errors.As(err, &conflict):
		return conflict.Known, conflict.Known == size, nil
	}
	return 0, false, err
}
