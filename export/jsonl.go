package export

import (
	"bufio"
	"io"

	"github.com/auditlog/auditlog/audit"
)

// Encoder writes events to an export, one at a time: memory does not
// grow with the number of events.
type Encoder interface {
	Write(e *audit.Event) error
	// Flush writes what is buffered.
	Flush() error
	// Rows is the number of events written.
	Rows() int64
}

// NewEncoder returns the encoder of format f ("" is CSV) writing to w.
func NewEncoder(f audit.ExportFormat, w io.Writer) (Encoder, error) {
	if f == audit.FormatJSONL {
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

// Flush writes the buffered lines.
func (j *JSONLWriter) Flush() error { return j.w.Flush() }

// Rows is the number of lines written.
func (j *JSONLWriter) Rows() int64 { return j.rows }
