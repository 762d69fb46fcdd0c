package api

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/gin-gonic/gin"

	"github.com/auditlog/auditlog/audit"
)

type timeNow func() time.Time

// maxStreamAttempts bounds the compare-and-set rounds of one change: the
// delivery loop writes the stream after each batch.
const maxStreamAttempts = 16

// streamAction is the handler of an action on a stream (pause, resume).
func (s *Server) streamAction(what string, act func(*stream.Stream, *gin.Context, timeNow) error) gin.HandlerFunc {
	return func(c *gin.Context) {
		s.changeStream(c, audit.ActionUpdate, what, func(st *stream.Stream) error { return act(st, c, s.deps.Now) })
	}
}

// changeStream applies change to the caller's stream :id, records the
// change in the tenant's log (before it is made: a change that then
// fails leaves the record of an attempt, never a change without one),
// and writes it at the revision read, again on a fresh read when a
// delivery wrote the stream meanwhile.
func (s *Server) changeStream(c *gin.Context, action audit.Action, operation string, change func(*stream.Stream) error) {
	ctx, tenant := c.Request.Context(), principalOf(c).TenantID
	for attempt := 0; ; attempt++ {
		st, err := s.streams.Store.Stream(ctx, tenant, c.Param("id"))
		if err != nil {
			writeError(c, s.deps.Logger, err)
			return
		}
		before := st
		if err := change(&st); err != nil {
			writeError(c, s.deps.Logger, err)
			return
		}
		if err := s.recordStream(c, action, operation, &before, &st); err != nil {
			writeError(c, s.deps.Logger, err)
			return
		}
		err = s.streams.Store.PutStream(ctx, &st)
		if audit.ErrorCode(err) == audit.ECONFLICT && attempt < maxStreamAttempts {
			continue
		}
		if err != nil {
			writeError(c, s.deps.Logger, err)
			return
		}
		s.writeStream(c, http.StatusOK, st)
		return
	}
}

// streamRecord is a stream as its change records show it: its
// configuration (secrets masked), state and cursor.
type streamRecord struct {
	stream.Config
	State  string `json:"state"`
	Cursor uint64 `json:"cursor"`
}

// recordStream writes the record of a change of a stream from before to
// after (nil before: created; nil after: deleted) in the tenant's log,
// the state and cursor telling a pause, a resume or a replay. One change
// of one revision is one record: a retried compare-and-set of the same
// change (operation names it) writes it once.
func (s *Server) recordStream(c *gin.Context, action audit.Action, operation string, before, after *stream.Stream) error {
	id, rev := "", ""
	rec := func(st *stream.Stream) []byte {
		if st == nil {
			return nil
		}
		id = st.ID
		return mustRaw(streamRecord{Config: st.Config(), State: st.State, Cursor: st.Cursor})
	}
	if before != nil {
		rev = before.Rev
	}
	b, a := rec(before), rec(after)
	e := s.selfEvent(c, action, audit.Resource{Type: audit.ResourceAuditStream, ID: id}, nil)
	e.Before, e.After = b, a
	e.ID = audit.DerivedID("stream-change", principalOf(c).TenantID, id, rev, string(action), operation, string(b), string(a))
	return s.writeSelfOnce(c, e)
}

// ReplayBody is what POST /api/streams/{id}/replay takes: the leaf index
// to deliver again from, or a time (the first leaf of an event at or
// after it).
type ReplayBody struct {
	From  *uint64          `json:"from"`
	Since *audit.Timestamp `json:"since"`
}

func (s *Server) replayStream(c *gin.Context) {
	var b ReplayBody
	empty, err := decodeStrict(c, maxSettingsBody, "replay", &b)
	switch {
	case err != nil:
	case empty || (b.From == nil) == (b.Since == nil):
		err = &audit.Error{Code: audit.EINVALID, Message: "invalid replay", Fields: []audit.FieldError{{Field: "from", Message: "give from (a leaf index) or since (a time), one of them"}}}
	case b.Since != nil:
		var from uint64
		from, err = s.leafSince(c, b.Since.Time)
		b.From = &from
	}
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	s.changeStream(c, audit.ActionUpdate, "replay from "+strconv.FormatUint(*b.From, 10), func(st *stream.Stream) error { return st.Replay(*b.From, s.deps.Now()) })
}

// leafSince is the first leaf of the events at or after t: the least
// leaf index among the earliest events from t on (the log is in sealing
// order, which follows the events' times but for late ones). Errors:
// EINVALID when no event from t on is sealed yet.
func (s *Server) leafSince(c *gin.Context, t time.Time) (uint64, error) {
	ctx, tenant := c.Request.Context(), principalOf(c).TenantID
	q := audit.Query{Filter: audit.Filter{TenantID: tenant, From: &t}, Sort: audit.Sort{Field: audit.SortTimestamp}, PageSize: 100, Page: 1, NoTotal: true}
	res, err := s.read.Reader.SearchEvents(ctx, q)
	if err != nil {
		return 0, err
	}
	best := int64(-1)
	for _, e := range res.Events {
		l, err := s.logs.Store.LeafOf(ctx, tenant, e.ID)
		if audit.ErrorCode(err) == audit.ENOTFOUND {
			continue // not sealed yet
		}
		if err != nil {
			return 0, err
		}
		if best < 0 || l.Index < best {
			best = l.Index
		}
	}
	if best < 0 {
		return 0, &audit.Error{Code: audit.EINVALID, Message: "invalid replay", Fields: []audit.FieldError{{Field: "since", Message: "no event at or after it is in the log yet"}}}
	}
	return uint64(best), nil
}

// StreamTestView is the answer of a test delivery.
type StreamTestView struct {
	Outcome string `json:"outcome"`
	Reason  string `json:"reason"`
}

// testStream sends a test delivery (a batch with no range and one event
// marked as a test) to the stream's destination; the stream's state and
// cursor do not change.
func (s *Server) testStream(c *gin.Context) {
	st, err := s.streams.Store.Stream(c.Request.Context(), principalOf(c).TenantID, c.Param("id"))
	if err == nil && s.streams.Test == nil {
		err = errors.New("no destination in this build")
	}
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	outcome, reason := s.streams.Test(c.Request.Context(), st)
	c.JSON(http.StatusOK, StreamTestView{Outcome: outcome, Reason: reason})
}
