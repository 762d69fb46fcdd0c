package api

import (
	"net/http"
	"strconv"
	"sync"

	"github.com/gin-gonic/gin"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/jsonenc"
)

// answerBuffers holds the buffers of answers between requests; one that
// grew beyond maxPooledBuffer (a page of large events) is left to the
// collector, so no pooled buffer holds more than 1 MiB.
var answerBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

const maxPooledBuffer = 1 << 20

// AppendJSON appends the response as encoding/json writes it (fields in
// their order, page left out when nil, every string HTML-escaped), each
// event by audit.Event.AppendJSON. Written by hand because c.JSON would
// have encoding/json validate and compact every event's JSON again, a
// second pass over each byte of the page. Errors: an event's raw value
// that is not valid JSON (audit.Event.AppendJSON).
func (r *ListResponse) AppendJSON(b []byte) ([]byte, error) {
	if r.Data == nil {
		b = append(b, `{"data":null`...)
	} else {
		b = append(b, `{"data":[`...)
	}
	var err error
	for i := range r.Data {
		if i > 0 {
			b = append(b, ',')
		}
		if b, err = r.Data[i].AppendJSON(b); err != nil {
			return nil, err
		}
	}
	if r.Data != nil {
		b = append(b, ']')
	}
	if len(r.Unreadable) > 0 {
		b = append(b, `,"unreadable":[`...)
		for i, u := range r.Unreadable {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"id":`...)
			b = jsonenc.AppendHTMLString(b, u.ID)
			b = append(b, `,"reason":`...)
			b = jsonenc.AppendHTMLString(b, u.Reason)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"nextCursor":`...)
	if r.NextCursor == nil {
		b = append(b, "null"...)
	} else {
		b = jsonenc.AppendHTMLString(b, *r.NextCursor)
	}
	b = append(b, `,"hasMore":`...)
	b = strconv.AppendBool(b, r.HasMore)
	b = append(b, `,"total":{"value":`...)
	b = strconv.AppendInt(b, r.Total.Value, 10)
	b = append(b, `,"relation":`...)
	b = jsonenc.AppendHTMLString(b, r.Total.Relation)
	b = append(b, '}')
	if r.Page != nil {
		b = append(b, `,"page":`...)
		b = strconv.AppendInt(b, int64(*r.Page), 10)
	}
	b = append(b, `,"pageSize":`...)
	b = strconv.AppendInt(b, int64(r.PageSize), 10)
	if len(r.Suggestions) > 0 {
		b = append(b, `,"suggestions":[`...)
		for i, sg := range r.Suggestions {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"q":`...)
			b = jsonenc.AppendHTMLString(b, sg.Q)
			b = append(b, `,"total":{"value":`...)
			b = strconv.AppendInt(b, sg.Total.Value, 10)
			b = append(b, `,"relation":`...)
			b = jsonenc.AppendHTMLString(b, sg.Total.Relation)
			b = append(b, "}}"...)
		}
		b = append(b, ']')
	}
	return append(b, '}'), nil
}

// writeAppended answers 200 with the JSON that appendJSON writes (a list
// response's or an event's AppendJSON), or the error it returns.
func (s *Server) writeAppended(c *gin.Context, appendJSON func([]byte) ([]byte, error)) {
	bp := answerBuffers.Get().(*[]byte)
	b, err := appendJSON((*bp)[:0])
	if err != nil {
		answerBuffers.Put(bp)
		writeError(c, s.deps.Logger, audit.Wrap(audit.EINTERNAL, err, "encoding the answer"))
		return
	}
	c.Data(http.StatusOK, "application/json; charset=utf-8", b)
	if cap(b) <= maxPooledBuffer {
		*bp = b
		answerBuffers.Put(bp)
	}
}
