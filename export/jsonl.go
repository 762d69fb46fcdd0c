package export

import (
	"bufio"
	"io"

	"github.com/auditlog/auditlog/audit/exportjob"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/jsonenc"
)

// Encoder writes events to an export, one at a time: memory does not
// grow with the number of events.
type Encoder interface {
	Write(e *audit.Event) error
	// WriteUnreadable writes the row of a stored event that is no event
	// (audit.UnreadableEvent): its id and why, so that the export names
	// it (issue 53) instead of failing.
	WriteUnreadable(u audit.UnreadableEvent) error
	// Flush writes what is buffered.
	Flush() error
	// Rows is the number of events written.
	Rows() int64
}

// NewEncoder returns the encoder of format f ("" is CSV) writing to w.
func NewEncoder(f exportjob.Format, w io.Writer) (Encoder, error) {
	if f == exportjob.FormatJSONL {
		return &JSONLWriter{w: bufio.NewWriterSize(w, 64<<10)}, nil
	}
	return NewCSVWriter(w)
}

// JSONLWriter encodes events as JSON lines: each line one event, exactly
// as the API shows it (secrets are masked before they are stored, so an
// export holds no more than a read does). Unlike CSV it needs no
// neutralising: nothing reads a JSON line as a formula.
type JSONLWriter struct {
	w    *bufio.Writer
	buf  []byte // the line being written, reused
	rows int64
}

// Write encodes one event as a line (as json.Marshal writes it).
func (j *JSONLWriter) Write(e *audit.Event) error {
	b, err := e.AppendJSON(j.buf[:0])
	if err != nil {
		return err
	}
	j.buf = append(b, '\n')
	if _, err := j.w.Write(j.buf); err != nil {
		return err
	}
	j.rows++
	return nil
}

// WriteUnreadable writes {"id":…,"unreadable":…} as a line.
func (j *JSONLWriter) WriteUnreadable(u audit.UnreadableEvent) error {
	b := append(j.buf[:0], `{"id":`...)
	b = jsonenc.AppendHTMLString(b, u.ID)
	b = append(b, `,"unreadable":`...)
	b = jsonenc.AppendHTMLString(b, u.Reason)
	j.buf = append(b, "}\n"...)
	if _, err := j.w.Write(j.buf); err != nil {
		return err
	}
	j.rows++
	return nil
}

// NameUnreadable writes the rows of the unreadable events a scan's error
// names (audit.UnreadableError), once every readable event is written,
// and returns nil for them; any other error is returned as it is.
func NameUnreadable(enc Encoder, err error) error {
	rows, ok := audit.UnreadableOf(err)
	if !ok {
		return err
	}
	for _, u := range rows {
		if err := enc.WriteUnreadable(u); err != nil {
			return err
		}
	}
	return nil
}

// Flush writes the buffered lines.
func (j *JSONLWriter) Flush() error { return j.w.Flush() }

// Rows is the number of lines written.
func (j *JSONLWriter) Rows() int64 { return j.rows }
