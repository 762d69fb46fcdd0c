package api

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/auditlog/auditlog/audit/exportjob"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/export"
)

// ExportDeps enable the export endpoints.
type ExportDeps struct {
	Service *export.Service
	// SyncTimeout bounds a synchronous export (default 5 min).
	SyncTimeout time.Duration
}

// exportParams are the parameters exports take besides the filters and
// the sort: async=true asks for a job whatever the count; format is csv
// (the default) or jsonl.
var exportParams = map[string]bool{"async": true, "format": true}

// exportAsk is an export request, read.
type exportAsk struct {
	v      url.Values
	f      audit.Filter
	so     audit.Sort
	async  bool
	format exportjob.Format
}

// ExportJobView is a job as the API shows it to its owner.
type ExportJobView struct {
	ID           string           `json:"id"`
	State        exportjob.State  `json:"state"`
	RowsWritten  int64            `json:"rowsWritten"`
	RowsExpected int64            `json:"rowsExpected"`
	Query        string           `json:"query"`
	Sort         string           `json:"sort"`
	Format       string           `json:"format"`
	FileName     string           `json:"fileName"`
	CreatedAt    audit.Timestamp  `json:"createdAt"`
	StartedAt    *audit.Timestamp `json:"startedAt,omitempty"`
	FinishedAt   *audit.Timestamp `json:"finishedAt,omitempty"`
	ExpiresAt    *audit.Timestamp `json:"expiresAt,omitempty"`
	Attempts     int              `json:"attempts"`
	Error        string           `json:"error,omitempty"`
	FileBytes    int64            `json:"fileBytes,omitempty"`
	StatusURL    string           `json:"statusUrl"`
	FileURL      string           `json:"fileUrl,omitempty"`
}

// millis is t as every time the API answers: UTC, to the millisecond.
func millis(t *time.Time) *audit.Timestamp {
	if t == nil {
		return nil
	}
	ts := audit.NewTimestamp(*t)
	return &ts
}

func jobView(j exportjob.Job) ExportJobView {
	v := ExportJobView{ID: j.ID, State: j.State, RowsWritten: j.RowsWritten, RowsExpected: j.RowsExpected, Query: j.Query,
		Sort: j.Sort.String(), Format: j.Format.Ext(), FileName: export.FileName(j), CreatedAt: audit.NewTimestamp(j.CreatedAt), StartedAt: millis(j.StartedAt), FinishedAt: millis(j.FinishedAt), ExpiresAt: millis(j.ExpiresAt),
		Attempts: j.Attempts, Error: j.Error, FileBytes: j.FileBytes, StatusURL: "/api/audit-logs/exports/" + j.ID}
	if j.State == exportjob.Done {
		v.FileURL = v.StatusURL + "/file"
	}
	return v
}

// exportRequest reads the parameters of an export: from the query string,
// or (POST only) from a JSON object whose members are the same parameters
// (a string, a boolean, a number, or a list of strings for a repeatable
// filter). The end of the time range is pinned to now when it is open or
// in the future, so that the export, its count and any retry of its job
// cover the same events.
func (s *Server) exportRequest(c *gin.Context) (exportAsk, error) {
	v := c.Request.URL.Query()
	if c.Request.Method == http.MethodPost && c.Request.ContentLength != 0 {
		body, err := io.ReadAll(io.LimitReader(c.Request.Body, 64<<10))
		if err != nil {
			return exportAsk{}, audit.Wrap(audit.EINVALID, err, "reading the request body")
		}
		if len(bytes.TrimSpace(body)) > 0 {
			if len(v) > 0 {
				return exportAsk{}, audit.Errorf(audit.EINVALID, "give the parameters in the query string or in the JSON body, not both")
			}
			if v, err = bodyParams(body); err != nil {
				return exportAsk{}, err
			}
			if fe := checkValues(v); len(fe) > 0 {
				return exportAsk{}, &audit.Error{Code: audit.EINVALID, Message: "invalid parameters in the body", Fields: fe}
			}
		}
	}
	p := &queryParser{v: v}
	p.unknown(filterParams, sortParams, exportParams)
	a := exportAsk{v: v, f: p.filter(principalOf(c).TenantID), so: p.sort(), format: exportjob.FormatCSV}
	if s := p.single("async"); s != "" {
		b, err := strconv.ParseBool(s)
		if err != nil {
			p.fail("async", "must be true or false")
		}
		a.async = b
	}
	if s := p.single("format"); s != "" {
		if a.format = exportjob.Format(s); !a.format.Valid() {
			p.fail("format", "must be csv or jsonl")
		}
	}
	if err := p.err(); err != nil {
		return a, err
	}
	now := s.deps.Now().UTC().Truncate(time.Millisecond)
	if a.f.To == nil || a.f.To.After(now) {
		a.f.To = &now
	}
	return a, nil
}

// bodyParams turns a JSON object of parameters into query values.
func bodyParams(body []byte) (url.Values, error) {
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, &audit.Error{Code: audit.EINVALID, Message: "the body must be a JSON object of export parameters",
			Fields: []audit.FieldError{{Field: "body", Message: err.Error()}}}
	}
	v := url.Values{}
	var bad []audit.FieldError
	for k, val := range m {
		switch x := val.(type) {
		case string:
			v.Add(k, x)
		case bool:
			v.Add(k, strconv.FormatBool(x))
		case float64:
			v.Add(k, strconv.FormatFloat(x, 'f', -1, 64))
		case []any:
			for _, item := range x {
				str, ok := item.(string)
				if !ok {
					bad = append(bad, audit.FieldError{Field: k, Message: "a list must hold strings"})
					break
				}
				v.Add(k, str)
			}
		default:
			bad = append(bad, audit.FieldError{Field: k, Message: "must be a string, a boolean, a number or a list of strings"})
		}
	}
	if len(bad) > 0 {
		return nil, &audit.Error{Code: audit.EINVALID, Message: "invalid export parameters", Fields: bad}
	}
	return v, nil
}

// createExport serves POST /api/audit-logs/exports and GET
// /api/audit-logs/export.csv: up to the sync limit, the CSV at once;
// above it (or with async=true), 202 and a job.
func (s *Server) createExport(c *gin.Context) {
	a, err := s.exportRequest(c)
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	svc := s.export.Service
	cctx, cancel := context.WithTimeout(c.Request.Context(), s.cfg.RequestTimeout)
	defer cancel()
	n, err := svc.Count(cctx, a.f)
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	query := a.v.Encode()
	if !a.async && n <= svc.SyncLimit() {
		s.streamExport(c, a, n, query)
		return
	}
	p := principalOf(c)
	j, err := svc.Submit(cctx, export.Request{Principal: p, Query: query, Filter: a.f, Sort: a.so, Format: a.format, Expected: n})
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	if err := s.record(c, audit.ResourceAuditExport, j.ID, map[string]any{"operation": "export", "mode": "async", "format": string(a.format), "rows": n, "query": query}); err != nil {
		_, _ = svc.Cancel(c.Request.Context(), p, j.ID)
		writeError(c, s.deps.Logger, err)
		return
	}
	view := jobView(j)
	c.Header("Location", view.StatusURL)
	c.JSON(http.StatusAccepted, view)
}

// streamExport answers the file at once, gzip-compressed when the client
// accepts it. An error before the first byte is a problem document; after
// it, the connection is cut so that the client sees a truncated answer,
// never a short file that looks whole.
func (s *Server) streamExport(c *gin.Context, a exportAsk, n int64, query string) {
	id := uuid.NewString()
	if err := s.record(c, audit.ResourceAuditExport, id, map[string]any{"operation": "export", "mode": "sync", "format": string(a.format), "rows": n, "query": query}); err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	ctx := c.Request.Context()
	timeout := s.export.SyncTimeout
	if timeout == 0 {
		timeout = 5 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	h := c.Writer.Header()
	attachment(h, a.format, export.Name(a.f, query, a.format, id))
	h.Set("X-Export-Rows", strconv.FormatInt(n, 10))
	var w io.Writer = c.Writer
	var gz *gzip.Writer
	if acceptsGzip(c.Request) {
		h.Set("Content-Encoding", "gzip")
		gz, _ = gzip.NewWriterLevel(c.Writer, gzip.BestSpeed)
		w = gz
	}
	c.Status(http.StatusOK)
	_, err := s.export.Service.Stream(ctx, w, a.f, a.so, a.format)
	if err == nil && gz != nil {
		err = gz.Close()
	}
	if err != nil {
		if !c.Writer.Written() {
			for _, k := range []string{"Content-Disposition", "Content-Encoding", "X-Export-Rows", "Content-Type"} {
				h.Del(k)
			}
			writeError(c, s.deps.Logger, err)
			return
		}
		s.deps.Logger.ErrorContext(ctx, "export stream failed after its start; cutting the connection", "requestId", requestID(c), "err", err)
		panic(http.ErrAbortHandler)
	}
}

// attachment sets the headers of a download of format named filename,
// whose encoding depends on the client's Accept-Encoding.
func attachment(h http.Header, format exportjob.Format, filename string) {
	h.Set("Content-Type", "text/csv; charset=utf-8")
	if format == exportjob.FormatJSONL {
		h.Set("Content-Type", "application/x-ndjson; charset=utf-8")
	}
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": filename}))
	h.Set("Vary", "Accept-Encoding")
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(enc), "gzip") && strings.ReplaceAll(params, " ", "") != "q=0" {
			return true
		}
	}
	return false
}

func (s *Server) listExports(c *gin.Context) {
	p := &queryParser{v: c.Request.URL.Query()}
	p.unknown(map[string]bool{"limit": true})
	limit := p.int("limit", 50, 1, 500)
	if err := p.err(); err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	if err := s.recordAccess(c, "list exports", nil); err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	jobs, err := s.export.Service.Jobs(c.Request.Context(), principalOf(c), limit)
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	out := make([]ExportJobView, len(jobs))
	for i, j := range jobs {
		out[i] = jobView(j)
	}
	c.JSON(http.StatusOK, gin.H{"data": out})
}

func (s *Server) getExport(c *gin.Context) {
	if err := s.recordAccess(c, "export status", map[string]any{"id": c.Param("id")}); err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	j, err := s.export.Service.Job(c.Request.Context(), principalOf(c), c.Param("id"))
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	c.JSON(http.StatusOK, jobView(j))
}

func (s *Server) cancelExport(c *gin.Context) {
	j, err := s.export.Service.Cancel(c.Request.Context(), principalOf(c), c.Param("id"))
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	c.JSON(http.StatusOK, jobView(j))
}

// exportFile serves the file of a done job: a redirect to a presigned URL
// when the file store has them, else the file itself, gzip-compressed
// when the client accepts it.
func (s *Server) exportFile(c *gin.Context) {
	id := c.Param("id")
	if err := s.recordAccess(c, "export download", map[string]any{"id": id}); err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	d, err := s.export.Service.Open(c.Request.Context(), principalOf(c), id)
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	if d.URL != "" {
		c.Redirect(http.StatusFound, d.URL)
		return
	}
	defer d.Body.Close()
	h := c.Writer.Header()
	attachment(h, d.Format, d.Name)
	if acceptsGzip(c.Request) {
		h.Set("Content-Encoding", "gzip")
		h.Set("Content-Length", strconv.FormatInt(d.Size, 10))
		c.Status(http.StatusOK)
		if _, err := io.Copy(c.Writer, d.Body); err != nil {
			panic(http.ErrAbortHandler)
		}
		return
	}
	zr, err := gzip.NewReader(d.Body)
	if err != nil {
		writeError(c, s.deps.Logger, audit.Wrap(audit.EINTERNAL, err, "export file %s is not gzip", id))
		return
	}
	c.Status(http.StatusOK)
	if _, err := io.Copy(c.Writer, zr); err != nil {
		panic(http.ErrAbortHandler)
	}
}
