// Package export produces CSV exports of the audit log: the streaming CSV
// encoder shared by the synchronous HTTP answer and the files of
// asynchronous jobs, and the job service (queue, worker, expiry, e-mail).
// It depends on the audit domain only; the stores, the file store and the
// mailer come in through the domain interfaces.
package export

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"sort"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/auditlog/auditlog/audit"
)

// CSVWriter encodes events as CSV rows (RFC 4180, UTF-8, CRLF line ends)
// under a header of audit.ExportColumns. It holds one row at a time:
// memory does not grow with the number of rows.
//
// Formula injection is neutralised (OWASP "CSV Injection", ASVS 5
// 1.2.10) for a spreadsheet in any common configuration: see appendNeutral
// for where a single quote is inserted, so every part shows as text.
// A cell holding a comma, a semicolon, a tab, a quote or a line break is
// quoted, so a spreadsheet that splits rows on ; or tab (the list
// separator of many locales) never starts a new cell inside a value.
// actor.userAgent, actor.email and reason are attacker-controlled.
type CSVWriter struct {
	w    *bufio.Writer
	row  []byte
	diff bytes.Buffer
	keys []string
	rows int64
}

// NewCSVWriter returns a writer to w; it writes the header at once.
func NewCSVWriter(w io.Writer) (*CSVWriter, error) {
	c := &CSVWriter{w: bufio.NewWriterSize(w, 64<<10)}
	for i, col := range audit.ExportColumns {
		if i > 0 {
			c.row = append(c.row, ',')
		}
		c.row = appendCell(c.row, col)
	}
	c.row = append(c.row, '\r', '\n')
	_, err := c.w.Write(c.row)
	return c, err
}

// AppendRow appends one CSV row of cells, each neutralised against
// formula injection and quoted as an event row's are, ended by CRLF: the
// other CSV answers (the legal hold report) are written the same way.
func AppendRow(dst []byte, cells ...string) []byte {
	for i, v := range cells {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendCell(dst, v)
	}
	return append(dst, '\r', '\n')
}

// Rows is the number of event rows written (the header not counted).
func (c *CSVWriter) Rows() int64 { return c.rows }

// Write encodes one event as a row: a cell per audit.ExportFields.
func (c *CSVWriter) Write(e *audit.Event) error {
	r := c.row[:0]
	for i, f := range audit.ExportFields {
		if i > 0 {
			r = append(r, ',')
		}
		switch f.Kind {
		case audit.KindString:
			r = appendCell(r, f.String(e))
		case audit.KindTime:
			r = e.Timestamp.AppendTo(r)
		case audit.KindBool:
			r = strconv.AppendBool(r, f.Bool(e))
		default:
			r = appendCell(r, c.cellJSON(f, e))
		}
	}
	return c.finishRow(r)
}

// cellJSON is the cell of a JSON field: the diff (diffJSON), or a raw
// value as it is.
func (c *CSVWriter) cellJSON(f *audit.EventField, e *audit.Event) string {
	if f.Kind == audit.KindDiff {
		return c.diffJSON(e)
	}
	return string(f.Raw(e))
}

// WriteUnreadable writes the row of an unreadable stored event: its id,
// and in the reason column "unreadable stored event: " and why; the other
// cells empty.
func (c *CSVWriter) WriteUnreadable(u audit.UnreadableEvent) error {
	r := appendCell(c.row[:0], u.ID)
	for _, col := range audit.ExportColumns[1:] {
		r = append(r, ',')
		if col == "reason" {
			r = appendCell(r, "unreadable stored event: "+u.Reason)
		}
	}
	return c.finishRow(r)
}

// finishRow ends the row r, keeps its buffer for the next and writes it.
func (c *CSVWriter) finishRow(r []byte) error {
	r = append(r, '\r', '\n')
	c.row = r
	if _, err := c.w.Write(r); err != nil {
		return err
	}
	c.rows++
	return nil
}

// Flush writes out what is buffered.
func (c *CSVWriter) Flush() error { return c.w.Flush() }

// diffJSON is the diff as compact JSON with sorted field names: {} when
// nothing changed.
func (c *CSVWriter) diffJSON(e *audit.Event) string {
	b := &c.diff
	b.Reset()
	if len(e.Diff) == 0 {
		return "{}"
	}
	c.keys = c.keys[:0]
	for k := range e.Diff {
		c.keys = append(c.keys, k)
	}
	sort.Strings(c.keys)
	b.WriteByte('{')
	for i, k := range c.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		enc := json.NewEncoder(b)
		enc.SetEscapeHTML(false)
		enc.Encode(k)
		b.Truncate(b.Len() - 1) // the encoder's newline
		ch := e.Diff[k]
		b.WriteString(`:{"from":`)
		writeRaw(b, ch.From)
		b.WriteString(`,"to":`)
		writeRaw(b, ch.To)
		b.WriteByte('}')
	}
	b.WriteByte('}')
	return b.String()
}

func writeRaw(b *bytes.Buffer, raw json.RawMessage) {
	if len(raw) == 0 {
		b.WriteString("null")
		return
	}
	if err := json.Compact(b, raw); err != nil {
		b.Write(raw) // stored events are valid JSON; keep the bytes as they are
	}
}

// triggerAfterBlank returns the offset in v of a formula trigger (=, +,
// -, @ or a full-width form) that follows only white space (ASCII or
// Unicode, zero-width characters and the byte-order mark, which importers
// commonly trim) and control characters, or -1.
func triggerAfterBlank(v string) int {
	for i, r := range v {
		switch {
		case unicode.IsSpace(r), unicode.IsControl(r), r == 0x200b, r == 0x200c, r == 0x200d, r == 0x2060, r == 0xfeff:
			continue
		case r == '=', r == '+', r == '-', r == '@', r == '＝', r == '＋', r == '－', r == '＠':
			return i
		}
		return -1
	}
	return -1
}

// splitsCell reports whether a spreadsheet may start a new cell or row
// after c: the list separators of other locales (; and tab) and line
// breaks, where quoting relative to commas does not protect a value.
func splitsCell(c byte) bool { return c == ';' || c == '\t' || c == '\r' || c == '\n' }

// appendNeutral appends v neutralised against formula injection, with
// quotes doubled when quoted. A spreadsheet in any common configuration
// shows every part of the cell as text:
//   - a cell that starts with a control character (tab, CR, LF, NUL…), or
//     whose first character after leading white space is a trigger, gets a
//     leading single quote;
//   - inside the value, a trigger that follows a ; or tab (the list
//     separator of other locales) or a line break, after any white space,
//     gets a single quote just before it, since such a reader starts a new
//     cell there whatever the quoting.
func appendNeutral(dst []byte, v string, quoted bool) []byte {
	if v != "" && (v[0] < 0x20 || v[0] == 0x7f || triggerAfterBlank(v) >= 0) {
		dst = append(dst, '\'')
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if quoted && c == '"' {
			dst = append(dst, '"')
		}
		dst = append(dst, c)
		if splitsCell(c) {
			if j := triggerAfterBlank(v[i+1:]); j >= 0 {
				dst = append(dst, v[i+1:i+1+j]...)
				dst = append(dst, '\'')
				i += j
			}
		}
	}
	return dst
}

// appendCell appends v as one CSV cell: neutralised (appendNeutral), and
// quoted when it holds a comma, a semicolon, a tab, a quote or a line
// break (quotes doubled). Invalid UTF-8 is replaced, so the file is
// always UTF-8.
func appendCell(dst []byte, v string) []byte {
	if !utf8.ValidString(v) {
		v = string(bytes.ToValidUTF8([]byte(v), []byte("\uFFFD")))
	}
	quote := false
	for i := 0; i < len(v); i++ {
		if c := v[i]; c == ',' || c == '"' || splitsCell(c) {
			quote = true
			break
		}
	}
	if !quote {
		return appendNeutral(dst, v, false)
	}
	dst = append(dst, '"')
	dst = appendNeutral(dst, v, true)
	return append(dst, '"')
}

// Cells returns the cells of e's row as a CSV reader gives them back
// (neutralised, unquoted). Tests compare exported files with it.
func Cells(e *audit.Event) []string {
	var c CSVWriter
	vals := make([]string, len(audit.ExportFields))
	for i, f := range audit.ExportFields {
		var v string
		switch f.Kind {
		case audit.KindString:
			v = f.String(e)
		case audit.KindTime:
			v = e.Timestamp.String()
		case audit.KindBool:
			v = strconv.FormatBool(f.Bool(e))
		default:
			v = c.cellJSON(f, e)
		}
		if !utf8.ValidString(v) {
			v = string(bytes.ToValidUTF8([]byte(v), []byte("\uFFFD")))
		}
		vals[i] = string(appendNeutral(nil, v, false))
	}
	return vals
}
