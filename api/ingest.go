package api

import (
	"bufio"
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/auditlog/auditlog/audit/mask"
	"github.com/auditlog/auditlog/audit/retention"
	"io"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/backoff"
)

// Ingest limits: a request carries at most MaxIngestEvents events and
// MaxIngestBytes bytes; beyond either the answer is 413 and nothing is
// stored.
const (
	MaxIngestEvents = 1000
	MaxIngestBytes  = 16 << 20
)

// IngestDeps enable POST /api/audit-events.
type IngestDeps struct {
	Writer audit.EventWriter
	// StaticToken is the service credential (AUDITLOG_INGEST_TOKEN); a
	// JWT with role ingest is accepted too (through Verifier).
	StaticToken string
	Verifier    *Verifier
	// Sensitive is the sensitive-change policy (nil: the defaults).
	Sensitive *mask.Policy
	// Retention refuses events older than their tenant's retention (nil:
	// none refused).
	Retention *retention.Gate
}

// IngestItem is the fate of one event of an ingest request.
type IngestItem struct {
	Index int `json:"index"`
	// Line is the event's line of an NDJSON body, from 1, blank lines
	// counted, so that a producer finds the line a rejection names.
	Line   int                `json:"line,omitempty"`
	ID     string             `json:"id,omitempty"`
	Status string             `json:"status"` // accepted, duplicate, conflict or rejected
	Errors []audit.FieldError `json:"errors,omitempty"`
}

// IngestResponse answers an ingest request, one item per event in order.
type IngestResponse struct {
	Accepted   int          `json:"accepted"`
	Duplicates int          `json:"duplicates"`
	Conflicts  int          `json:"conflicts"`
	Rejected   int          `json:"rejected"`
	Items      []IngestItem `json:"items"`
}

// ingestAuth admits the static service token or a JWT with role ingest.
// Tenant roles can never write events.
func (s *Server) ingestAuth(c *gin.Context) {
	tok := BearerToken(c.GetHeader("Authorization"))
	if st := s.ingest.StaticToken; st != "" && tok != "" && subtle.ConstantTimeCompare([]byte(tok), []byte(st)) == 1 {
		c.Next()
		return
	}
	if s.ingest.Verifier != nil && tok != "" {
		p, err := s.ingest.Verifier.Verify(tok)
		if err == nil && p.Role == audit.RoleIngest {
			c.Next()
			return
		}
		if err == nil {
			writeError(c, s.deps.Logger, audit.Errorf(audit.EFORBIDDEN, "role %q cannot write audit events", p.Role))
			return
		}
	}
	c.Header("WWW-Authenticate", `Bearer realm="auditlog-ingest"`)
	writeError(c, s.deps.Logger, audit.Errorf(audit.EUNAUTHORIZED, "a service credential is required"))
}

// ingestEvents stores a JSON array or NDJSON of events. Validation is the
// indexer's; an event without an id gets one derived from its canonical
// form, so a retried request never duplicates events. The answer lists
// each event as accepted, duplicate (the same event is already stored in
// its tenant), conflict (its id is stored in its tenant with other
// content; the stored event is kept) or rejected (with every offending
// field). Ids are per tenant: another tenant's ids are never revealed. When the store cannot take the batch the answer is 503 and the
// whole request may be retried.
func (s *Server) ingestEvents(c *gin.Context) {
	body, err := io.ReadAll(http.MaxBytesReader(c.Writer, c.Request.Body, MaxIngestBytes))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		writeError(c, s.deps.Logger, audit.Errorf(audit.ETOOLARGE, "the request exceeds %d bytes; send at most %d events of at most %d bytes each", MaxIngestBytes, MaxIngestEvents, audit.MaxEventBytes))
		return
	}
	if err != nil {
		writeError(c, s.deps.Logger, audit.Wrap(audit.EINVALID, err, "reading the request body"))
		return
	}
	raws, lines, err := splitEvents(body)
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	if len(raws) > MaxIngestEvents {
		writeError(c, s.deps.Logger, audit.Errorf(audit.ETOOLARGE, "%d events in one request; the limit is %d", len(raws), MaxIngestEvents))
		return
	}
	out := IngestResponse{Items: make([]IngestItem, len(raws))}
	for i, l := range lines {
		out.Items[i].Line = l
	}
	events, index := decodeItems(s.ingest.Sensitive, raws, s.deps.Now(), out.Items)
	events, index, err = s.dropExpired(c.Request.Context(), events, index, out.Items)
	if err != nil {
		writeError(c, s.deps.Logger, audit.Wrap(audit.EUNAVAILABLE, err, "the tenant directory cannot be read now; retry the request (ids make retries safe)"))
		return
	}
	// Transient per-item failures are retried within the request's time;
	// a store that cannot take the batch at all is a 503 at once.
	bo := backoff.New(50*time.Millisecond, time.Second)
	ctx := c.Request.Context()
	res, err := audit.WriteSettled(ctx, s.ingest.Writer, events, audit.Retrier{
		Wait:         func(ctx context.Context) bool { return backoff.Sleep(ctx, bo.Next()) },
		BatchFailed:  func(error, int) bool { return false },
		ItemsRetried: func(int, audit.WriteResult) {},
	})
	switch {
	case err != nil && ctx.Err() != nil:
		writeError(c, s.deps.Logger, audit.Errorf(audit.EUNAVAILABLE, "the store is overloaded; retry the request (ids make retries safe)"))
		return
	case err != nil:
		writeError(c, s.deps.Logger, audit.Wrap(audit.EUNAVAILABLE, err, "the store cannot take events now; retry the request (ids make retries safe)"))
		return
	}
	for j, r := range res {
		it := &out.Items[index[j]]
		switch r.Status {
		case audit.WriteCreated:
			it.Status = "accepted"
		case audit.WriteDuplicate:
			it.Status = "duplicate"
		case audit.WriteConflict:
			it.Status = "conflict"
			it.Errors = []audit.FieldError{{Field: "id", Message: r.Reason}}
			s.conflicts.Inc()
		case audit.WriteRejected:
			it.Status = "rejected"
			it.Errors = []audit.FieldError{{Field: "", Message: r.Reason}}
		}
	}
	out.count()
	if out.Rejected > 0 && out.Rejected == len(out.Items) {
		writeError(c, s.deps.Logger, noneAccepted(out))
		return
	}
	c.JSON(http.StatusOK, out)
}

// noneAccepted is the 400 of a request none of whose events could be
// stored: a producer that reads only the status must not take it for a
// success. Each rejected event's problems are listed by its place in the
// body ("[3].tenantId", with the NDJSON line in the message), and the
// whole per-event answer is in details.
func noneAccepted(out IngestResponse) error {
	var fe audit.FieldErrors
	for _, it := range out.Items {
		at := ""
		if it.Line > 0 {
			at = fmt.Sprintf("line %d: ", it.Line)
		}
		for _, e := range it.Errors {
			field := fmt.Sprintf("[%d]", it.Index)
			if e.Field != "" {
				field += "." + e.Field
			}
			fe.Add(field, "%s%s", at, e.Message)
		}
	}
	return &audit.Error{Code: audit.EINVALID, Fields: fe, Details: out,
		Message: fmt.Sprintf("none of the %d events was accepted: each is named in errors, and details.items answers every event", len(out.Items))}
}

// decodeItems validates each raw event, answering the invalid ones in
// items; it returns the valid events (with their ids) and their indices.
func decodeItems(policy *mask.Policy, raws [][]byte, now time.Time, items []IngestItem) ([]audit.Event, []int) {
	var events []audit.Event
	var index []int
	for i, raw := range raws {
		e, err := policy.Decode(raw, now)
		if err != nil {
			items[i] = IngestItem{Index: i, Line: items[i].Line, Status: "rejected", Errors: audit.ErrorFields(err)}
			continue
		}
		if e.ID == "" {
			e.ID = audit.DeriveID(e.Timestamp, audit.CanonicalKey(e))
		}
		items[i] = IngestItem{Index: i, Line: items[i].Line, ID: e.ID}
		events = append(events, e)
		index = append(index, i)
	}
	return events, index
}

// dropExpired answers rejected, with the reason, the events older than
// their tenant's retention (retention.Gate), and returns the others.
func (s *Server) dropExpired(ctx context.Context, events []audit.Event, index []int, items []IngestItem) ([]audit.Event, []int, error) {
	verdicts, err := s.ingest.Retention.Check(ctx, events)
	if err != nil {
		return nil, nil, err
	}
	keptE, keptI := events[:0], index[:0]
	for j, v := range verdicts {
		if v != nil {
			items[index[j]] = IngestItem{Index: index[j], Line: items[index[j]].Line, ID: events[j].ID, Status: "rejected", Errors: audit.ErrorFields(v)}
			continue
		}
		keptE, keptI = append(keptE, events[j]), append(keptI, index[j])
	}
	return keptE, keptI, nil
}

// count fills in the totals of the answer from its items.
func (out *IngestResponse) count() {
	for _, it := range out.Items {
		switch it.Status {
		case "accepted":
			out.Accepted++
		case "duplicate":
			out.Duplicates++
		case "conflict":
			out.Conflicts++
		default:
			out.Rejected++
		}
	}
}

// splitEvents reads a JSON array of events, or NDJSON (one event per
// non-blank line), with each NDJSON event's line, from 1.
func splitEvents(body []byte) (raws [][]byte, lines []int, err error) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return nil, nil, &audit.Error{Code: audit.EINVALID, Message: "no events", Fields: []audit.FieldError{{Field: "body", Message: "send a JSON array of events or NDJSON"}}}
	}
	if trimmed[0] == '[' {
		var arr []json.RawMessage
		if err := json.Unmarshal(trimmed, &arr); err != nil {
			return nil, nil, &audit.Error{Code: audit.EINVALID, Message: "the body is not a JSON array of events", Fields: []audit.FieldError{{Field: "body", Message: err.Error()}}}
		}
		raws = make([][]byte, len(arr))
		for i, r := range arr {
			raws[i] = r
		}
		return raws, nil, nil
	}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 64<<10), MaxIngestBytes)
	for n := 1; sc.Scan(); n++ {
		if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
			raws, lines = append(raws, append([]byte(nil), line...)), append(lines, n)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, audit.Wrap(audit.EINVALID, err, "reading NDJSON")
	}
	return raws, lines, nil
}
