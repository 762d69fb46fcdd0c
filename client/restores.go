package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/auditlog/auditlog/audit/restorejob"

	"github.com/auditlog/auditlog/kafka"
)

// RestoreHandler applies one restore request. Deliveries are at least
// once: a handler drops a RequestID it has already applied. It checks
// ExpectedState (or ExpectedEventID) against the resource, puts State
// back, leaves OmittedFields as they are, and publishes the outcome
// (Applied or Failed). A returned error means "not handled, send again".
type RestoreHandler func(ctx context.Context, req restorejob.Request) error

// ErrBadSignature is returned (wrapped) for a restore request whose
// signature does not verify.
var ErrBadSignature = errors.New("restore request signature does not verify")

// verify checks body against its signature header at time at when the
// client has a RestoreSecret; without one (Kafka only: the topic's ACLs
// are then the only check) every message is taken.
func (c *Client) verify(body []byte, header string, at time.Time) (restorejob.Request, error) {
	var req restorejob.Request
	if len(c.cfg.RestoreSecret) > 0 {
		if err := restorejob.VerifyBody(c.cfg.RestoreSecret, body, header, at); err != nil {
			return req, fmt.Errorf("%w: %v", ErrBadSignature, err)
		}
	}
	if err := json.Unmarshal(body, &req); err != nil || req.RequestID == "" {
		return req, fmt.Errorf("client: not a restore request: %v", err)
	}
	return req, nil
}

// ConsumeRestores reads the restore topic in the consumer group until ctx
// ends, hands each request to h, and commits it once h returns nil. A
// message that does not verify is reported to invalid and skipped (it is
// not a request of the audit log). A handler error stops the loop
// uncommitted: the request comes again at the next start.
func (c *Client) ConsumeRestores(ctx context.Context, group string, h RestoreHandler, invalid func(kafka.Message, error)) error {
	// A consumer may start before the audit log created the topic: a group
	// joined on no partitions would wait forever, so it joins once the
	// topic exists, and watches for partitions added later.
	if err := kafka.WaitTopic(ctx, c.cfg.Brokers, c.cfg.RestoreTopic, 2*time.Second); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	r := kafka.NewGroupReader(kafka.GroupConfig{Brokers: c.cfg.Brokers, Topic: c.cfg.RestoreTopic, Group: group, WatchPartitions: true})
	defer r.Close()
	for {
		m, err := r.FetchMessage(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		// A Kafka request is verified at the time it was written: it may
		// be read long after.
		req, err := c.verify(m.Value, kafka.HeaderValue(m, restorejob.SignatureHeader), m.Time)
		if err != nil {
			if invalid != nil {
				invalid(m, err)
			}
		} else if err := h(ctx, req); err != nil {
			return fmt.Errorf("client: restore %s: %w", req.RequestID, err)
		}
		// Handled: committed even when ctx ended meanwhile (shutdown), so
		// that it is not handled again needlessly.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		err = r.CommitMessages(cctx, m)
		cancel()
		if err != nil {
			return err
		}
	}
}

// WebhookHandler receives restore requests POSTed by the audit log: it
// verifies the signature with the client's RestoreSecret (401 when it
// does not verify), hands the request to h and answers 204, or 500 when h
// fails so that the audit log sends it again.
func (c *Client) WebhookHandler(h RestoreHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 4<<20))
		if err != nil {
			http.Error(w, "unreadable body", http.StatusBadRequest)
			return
		}
		if len(c.cfg.RestoreSecret) == 0 {
			// A webhook is reachable by anyone: never without a secret.
			http.Error(w, "the receiver has no RestoreSecret to verify requests with", http.StatusUnauthorized)
			return
		}
		req, err := c.verify(body, r.Header.Get(restorejob.SignatureHeader), time.Now())
		switch {
		case errors.Is(err, ErrBadSignature):
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		case err != nil:
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if err := h(r.Context(), req); err != nil {
			http.Error(w, "not applied: "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
}
