package elasticsearch

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/auditlog/auditlog/audit/exportjob"

	fastjson "github.com/goccy/go-json"

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
// latest id, and each hit's source and sort values.
type ScanPage struct {
	PitID string `json:"pit_id"`
	Hits  struct {
		Hits []struct {
			Source json.RawMessage `json:"_source"`
			Sort   json.RawMessage `json:"sort"`
		} `json:"hits"`
	} `json:"hits"`
}

type scanResult struct {
	events     []audit.Event
	unreadable []audit.UnreadableEvent
	err        error
}

// ScanEvents implements audit.EventScanner: a point in time over the
// tenant's streams, read page after page with search_after, the next page
// fetched while the caller works on the current one; an ascending scan of
// a bounded window reads it slice by slice (timeSlices). An event stored
// twice (in two backing indices, see shared/DESIGN.md) has the same sort
// values both times, so its copies are adjacent: the scan drops an id equal
// to the one before it, which collapses duplicates in constant memory.
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
	pages := make(chan scanResult, 1)
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
		var after json.RawMessage
		slicer := newTimeSlices(f, so)
		for {
			events, bad, last, next, err := s.scanPage(fetchCtx, slicer.filter(f), so, pit, after)
			if err == nil && next != "" {
				pit = next
			}
			// Before the page is handed over: the caller's goroutine
			// owns its events from then on.
			// A page is full with its unreadable documents counted.
			more := slicer.next(events, s.cfg.ScanPageSize-len(bad)) || slicer == nil && len(bad) > 0
			select {
			case pages <- scanResult{events, bad, err}:
			case <-fetchCtx.Done():
				return
			}
			if err != nil || !more {
				return
			}
			if last != nil {
				after = last
			}
		}
	}()
	lastID := ""
	var unreadable []audit.UnreadableEvent
	for p := range pages {
		if p.err != nil {
			return p.err
		}
		unreadable = append(unreadable, p.unreadable...)
		events := p.events[:0]
		for _, e := range p.events {
			if e.ID != lastID {
				events = append(events, e)
			}
			lastID = e.ID
		}
		if len(events) > 0 {
			if err := fn(events); err != nil {
				return err
			}
		}
	}
	if err := ctx.Err(); err != nil || len(unreadable) == 0 {
		return err
	}
	return audit.UnreadableError(unreadable) // every readable event delivered
}

// scanPage fetches one page; last is the sort of its last hit (nil when
// the page is empty: the scan is over).
func (s *Store) scanPage(ctx context.Context, f audit.Filter, so audit.Sort, pit string, after json.RawMessage) (events []audit.Event, bad []audit.UnreadableEvent, last json.RawMessage, nextPit string, err error) {
	body, err := json.Marshal(ScanBody(f, so, pit, s.cfg.ScanPageSize, after))
	if err != nil {
		return nil, nil, nil, "", audit.Wrap(audit.EINTERNAL, err, "encoding scan request")
	}
	res, err := s.c.Do(ctx, http.MethodPost, ScanPath, body)
	if err != nil {
		return nil, nil, nil, "", err
	}
	if res.Status != http.StatusOK {
		return nil, nil, nil, "", StatusError(http.MethodPost, "/_search (point in time)", res)
	}
	// The sources are decoded in the same pass as the page (not kept as
	// raw JSON and decoded again: that copy was a fifth of a scan's CPU).
	var page struct {
		PitID string `json:"pit_id"`
		Hits  struct {
			Hits []struct {
				Source doc             `json:"_source"`
				Sort   json.RawMessage `json:"sort"`
			} `json:"hits"`
		} `json:"hits"`
	}
	if err := fastjson.Unmarshal(res.Body, &page); err != nil {
		return scanPageSlowly(res.Body, f.TenantID, so)
	}
	hits := page.Hits.Hits
	if len(hits) == 0 {
		return nil, nil, nil, page.PitID, nil
	}
	events = make([]audit.Event, 0, len(hits))
	for i := range hits {
		e := hits[i].Source.event()
		if e.ID == "" || audit.NormalizeTenantID(e.TenantID) != f.TenantID {
			raw, _ := json.Marshal(hits[i].Source)
			_, u := readSource(raw, f.TenantID, so)
			bad = append(bad, *u)
			continue
		}
		events = append(events, e)
	}
	return events, bad, hits[len(hits)-1].Sort, page.PitID, nil
}

// scanPageSlowly decodes a scan page that did not decode whole: each
// document on its own, one that is no event named unreadable.
func scanPageSlowly(b []byte, tenant string, so audit.Sort) (events []audit.Event, bad []audit.UnreadableEvent, last json.RawMessage, nextPit string, err error) {
	var page ScanPage
	if err := json.Unmarshal(b, &page); err != nil {
		return nil, nil, nil, "", audit.Wrap(audit.EINTERNAL, err, "decoding a scan page")
	}
	hits := page.Hits.Hits
	if len(hits) == 0 {
		return nil, nil, nil, page.PitID, nil
	}
	for _, h := range hits {
		if e, u := readSource(h.Source, tenant, so); u != nil {
			bad = append(bad, *u)
		} else {
			events = append(events, e)
		}
	}
	return events, bad, hits[len(hits)-1].Sort, page.PitID, nil
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
