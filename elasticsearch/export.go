package elasticsearch

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/auditlog/auditlog/audit/exportjob"
	"github.com/auditlog/auditlog/internal/jsonenc"

	"github.com/auditlog/auditlog/audit"
)

// CountEvents implements audit.EventScanner with _count. Like every
// search, it counts the rare duplicate that sits in two backing indices
// (shared/DESIGN.md): the count of an export is an upper bound.
func (s *Store) CountEvents(ctx context.Context, f audit.Filter) (int64, error) {
	var out struct {
		Count int64 `json:"count"`
	}
	body := map[string]any{"query": map[string]any{"bool": map[string]any{"filter": FilterClauses(f)}}}
	path, err := s.tenantPath(ctx, f.TenantID, "_count")
	if err != nil {
		return 0, err
	}
	if err := s.c.DoJSON(ctx, http.MethodPost, path, body, &out); err != nil {
		return 0, err
	}
	return out.Count, nil
}

// ScanPath is where the pages of a scan are asked for (a point in time
// names its indices itself).
const ScanPath = "/_search?filter_path=pit_id,hits.hits._source,hits.hits.sort"

// ScanKeepAlive is how long a point in time lives between two pages.
const ScanKeepAlive = "2m"

// ScanBody is the request of one page of an export scan: the filter, the
// sort (Elasticsearch adds _shard_doc as the last tiebreaker of a point
// in time), and search_after the sort values of the last hit.
func ScanBody(f audit.Filter, s audit.Sort, pit string, size int, after json.RawMessage) map[string]any {
	body := map[string]any{
		"size":             size,
		"query":            map[string]any{"bool": map[string]any{"filter": FilterClauses(f)}},
		"sort":             SortClause(s),
		"pit":              map[string]any{"id": pit, "keep_alive": ScanKeepAlive},
		"track_total_hits": false,
	}
	if after != nil {
		body["search_after"] = after
	}
	return body
}

// ScanPage is the answer to one page of a scan: the point in time's
// latest id, and each hit's source and sort values, in order. Sources
// and Sorts are slices of the answer's bytes (ParseScanPage copies
// nothing).
type ScanPage struct {
	PitID   string
	Sources []json.RawMessage
	Sorts   []json.RawMessage
}

// ParseScanPage reads {"pit_id":…,"hits":{"hits":[{"_source":…,"sort":…},…]}}
// (other members skipped), with the same scanner as the list's pages
// (parsePage): the hits' values are found, not decoded, so that each
// source is decoded once, by the strict decoder.
func ParseScanPage(b []byte) (ScanPage, error) {
	var out ScanPage
	hit := func(key string, v int) (int, error) {
		e, err := skipValue(b, v)
		switch {
		case err != nil:
		case key == "_source":
			out.Sources = append(out.Sources, json.RawMessage(b[v:e]))
		case key == "sort":
			out.Sorts = append(out.Sorts, json.RawMessage(b[v:e]))
		}
		return e, err
	}
	hits := func(key string, v int) (int, error) {
		if key != "hits" {
			return skipValue(b, v)
		}
		return elements(b, v, func(h int) (int, error) {
			n := len(out.Sources)
			e, err := members(b, h, hit)
			if err == nil && (len(out.Sources) != n+1 || len(out.Sorts) != n+1) {
				err = fmt.Errorf("a hit at byte %d has no _source or no sort", h)
			}
			return e, err
		})
	}
	end, err := members(b, 0, func(key string, v int) (int, error) {
		switch key {
		case "hits":
			return members(b, v, hits)
		case "pit_id":
			e, err := skipValue(b, v)
			if err == nil {
				err = json.Unmarshal(b[v:e], &out.PitID)
			}
			return e, err
		}
		return skipValue(b, v)
	})
	if err == nil && jsonenc.SkipSpace(b, end) != len(b) {
		err = fmt.Errorf("bytes after the answer at byte %d", end)
	}
	return out, err
}

// ScanEvents implements audit.EventScanner: a point in time over the
// tenant's streams, read page after page with search_after; an ascending
// scan of a bounded window reads it slice by slice (timeSlices). Two
// stages: a fetching goroutine asks for the next page as soon as it has
// found the current one's last sort values (ParseScanPage, no event
// decoded), while the caller's goroutine decodes the current page and
// works on its events, so Elasticsearch's time and the decoding overlap.
// An event stored twice (in two backing indices, see shared/DESIGN.md) has
// the same sort values both times, so its copies are adjacent: the scan
// drops an id equal to the one before it, which collapses duplicates in
// constant memory.
func (s *Store) ScanEvents(ctx context.Context, f audit.Filter, so audit.Sort, fn func([]audit.Event) error) error {
	var opened struct {
		ID string `json:"id"`
	}
	path, err := s.tenantPath(ctx, f.TenantID, "_pit")
	if err != nil {
		return err
	}
	err = s.c.DoJSON(ctx, http.MethodPost, path+"&keep_alive="+ScanKeepAlive, nil, &opened)
	if audit.ErrorCode(err) == audit.ENOTFOUND {
		return nil // the tenant has no stream yet
	}
	if err != nil {
		return err
	}
	// The fetching goroutine owns pit (each page may name a newer id);
	// the point in time is closed with the latest one once it has exited.
	pit := opened.ID
	fetchCtx, cancel := context.WithCancel(ctx)
	pages := make(chan fetchedPage, 1)
	defer func() {
		cancel()
		for range pages { // wait for the fetcher: it closes pages on exit
		}
		cctx, cancelClose := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancelClose()
		_ = s.c.DoJSON(cctx, http.MethodDelete, "/_pit", map[string]any{"id": pit}, nil)
	}()
	go func() {
		defer close(pages)
		s.fetchPages(fetchCtx, f, so, &pit, pages)
	}()
	lastID := ""
	var unreadable []audit.UnreadableEvent
	for p := range pages {
		if p.err != nil {
			return p.err
		}
		events, bad := decodeScanPage(p.page, f.TenantID, so)
		unreadable = append(unreadable, bad...)
		kept := events[:0]
		for _, e := range events {
			if e.ID != lastID {
				kept = append(kept, e)
			}
			lastID = e.ID
		}
		if len(kept) > 0 {
			if err := fn(kept); err != nil {
				return err
			}
		}
	}
	if err := ctx.Err(); err != nil || len(unreadable) == 0 {
		return err
	}
	return audit.UnreadableError(unreadable) // every readable event delivered
}

// fetchedPage is one page as the fetcher found it, or the error that
// ended the scan.
type fetchedPage struct {
	page ScanPage
	err  error
}

// fetchPages fetches the scan's pages into pages until the window is read,
// an error (sent last) or ctx ends; *pit follows the newest id.
func (s *Store) fetchPages(ctx context.Context, f audit.Filter, so audit.Sort, pit *string, pages chan<- fetchedPage) {
	var after json.RawMessage
	slicer := newTimeSlices(f, so)
	for {
		page, err := s.fetchScanPage(ctx, slicer.filter(f), so, *pit, after)
		if err == nil && page.PitID != "" {
			*pit = page.PitID
		}
		n := len(page.Sources)
		more := err == nil && n > 0
		if slicer != nil && err == nil {
			var first, last time.Time
			var knownFirst, knownLast bool
			if n > 0 {
				first, knownFirst = sortTime(page.Sorts[0])
				last, knownLast = sortTime(page.Sorts[n-1])
			}
			more = slicer.next(n, first, last, knownFirst && knownLast, s.cfg.ScanPageSize)
		}
		select {
		case pages <- fetchedPage{page, err}:
		case <-ctx.Done():
			return
		}
		if !more {
			return
		}
		if n > 0 { // an empty slice moves the window on; the position stays
			after = page.Sorts[n-1]
		}
	}
}

// fetchScanPage fetches one page and finds its hits (ParseScanPage).
func (s *Store) fetchScanPage(ctx context.Context, f audit.Filter, so audit.Sort, pit string, after json.RawMessage) (ScanPage, error) {
	body, err := json.Marshal(ScanBody(f, so, pit, s.cfg.ScanPageSize, after))
	if err != nil {
		return ScanPage{}, audit.Wrap(audit.EINTERNAL, err, "encoding scan request")
	}
	res, err := s.c.Do(ctx, http.MethodPost, ScanPath, body)
	if err != nil {
		return ScanPage{}, err
	}
	if res.Status != http.StatusOK {
		return ScanPage{}, StatusError(http.MethodPost, "/_search (point in time)", res)
	}
	page, err := ParseScanPage(res.Body)
	if err != nil {
		return ScanPage{}, audit.Wrap(audit.EINTERNAL, err, "decoding a scan page")
	}
	return page, nil
}

// decodeScanPage decodes a page's sources by the strict decoder; a
// document that is no event of the tenant is named unreadable.
func decodeScanPage(page ScanPage, tenant string, so audit.Sort) (events []audit.Event, bad []audit.UnreadableEvent) {
	events = make([]audit.Event, 0, len(page.Sources))
	for _, src := range page.Sources {
		if e, u := readEvent(src, tenant, so); u != nil {
			bad = append(bad, *u)
		} else {
			events = append(events, e)
		}
	}
	return events, bad
}

// sortTime reads the first sort value of a hit of a timestamp scan: the
// @timestamp in epoch milliseconds, as Elasticsearch sorts a date.
func sortTime(sort json.RawMessage) (time.Time, bool) {
	var vals []json.RawMessage
	if err := json.Unmarshal(sort, &vals); err != nil || len(vals) == 0 {
		return time.Time{}, false
	}
	ms, err := strconv.ParseInt(string(vals[0]), 10, 64)
	return time.UnixMilli(ms), err == nil
}

// The export jobs live in one index, <prefix>-export-jobs. A job's
// revision is its _seq_no and _primary_term: an update is conditional on
// both (optimistic concurrency), so two workers never both claim a job.

func jobOf(h hit[exportjob.Job]) exportjob.Job {
	j := h.Source
	j.Rev = h.revision.String()
	return j
}

// CreateExportJob implements exportjob.Store.
func (s *Store) CreateExportJob(ctx context.Context, j *exportjob.Job, maxActive int) error {
	if err := s.admitExportJob(ctx, j.TenantID, j.ID, maxActive); err != nil {
		return err
	}
	rev, created, err := s.createDoc(ctx, s.ExportJobsIndex(), j.ID, "export job", j, true)
	if err != nil {
		return err
	}
	if !created {
		return audit.Errorf(audit.ECONFLICT, "export job %s exists", j.ID)
	}
	j.Rev = rev
	return nil
}

// ExportJob implements exportjob.Store.
func (s *Store) ExportJob(ctx context.Context, tenantID, id string) (exportjob.Job, error) {
	j, rev, found, err := getDoc[exportjob.Job](ctx, s, s.ExportJobsIndex(), id, "export job "+id)
	if err != nil {
		return exportjob.Job{}, err
	}
	if !found || j.TenantID != tenantID {
		return exportjob.Job{}, audit.Errorf(audit.ENOTFOUND, "no export job %s", id)
	}
	j.Rev = rev
	return j, nil
}

// FindExportJobs implements exportjob.Store.
func (s *Store) FindExportJobs(ctx context.Context, q exportjob.Query) ([]exportjob.Job, error) {
	filter := []any{}
	term := func(field string, v any) { filter = append(filter, map[string]any{"term": map[string]any{field: v}}) }
	if q.TenantID != "" {
		term("tenantId", q.TenantID)
	}
	if q.OwnerID != "" {
		term("owner.userId", q.OwnerID)
	}
	if len(q.States) > 0 {
		filter = append(filter, map[string]any{"terms": map[string]any{"state": q.States}})
	}
	if !q.ExpiresBefore.IsZero() {
		filter = append(filter, map[string]any{"range": map[string]any{"expiresAt": map[string]any{"lt": q.ExpiresBefore.UTC().Format(time.RFC3339Nano)}}})
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 100
	}
	dir := "asc"
	if q.NewestFirst {
		dir = "desc"
	}
	body := map[string]any{
		"size": limit, "seq_no_primary_term": true,
		"query": map[string]any{"bool": map[string]any{"filter": filter}},
		"sort":  []any{map[string]any{"createdAt": dir}, map[string]any{"id": dir}},
	}
	var out struct {
		Hits struct {
			Hits []hit[exportjob.Job] `json:"hits"`
		} `json:"hits"`
	}
	if err := s.c.DoJSON(ctx, http.MethodPost, "/"+s.ExportJobsIndex()+"/_search", body, &out); err != nil {
		return nil, err
	}
	jobs := make([]exportjob.Job, len(out.Hits.Hits))
	for i, h := range out.Hits.Hits {
		jobs[i] = jobOf(h)
	}
	return jobs, nil
}

// UpdateExportJob implements exportjob.Store.
func (s *Store) UpdateExportJob(ctx context.Context, j *exportjob.Job) error {
	rev, err := s.putIfUnchanged(ctx, s.ExportJobsIndex(), j.ID, j.Rev, "export job "+j.ID, j,
		func() error { _, err := s.ExportJob(ctx, j.TenantID, j.ID); return err })
	if err != nil {
		return err
	}
	j.Rev = rev
	return nil
}
