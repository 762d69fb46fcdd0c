package elasticsearch

import (
	"context"
	"encoding/json"
	"github.com/auditlog/auditlog/audit/search"
	"net/http"
	"time"

	"github.com/auditlog/auditlog/audit/stats"

	"github.com/auditlog/auditlog/audit"
)

// sortFieldOf maps a domain sort field to the mapped field.
func sortFieldOf(f audit.SortField) string {
	if f == audit.SortTimestamp {
		return "@timestamp"
	}
	return string(f)
}

// FilterClauses is the bool filter of a domain filter. The tenant term is
// a second guard: the index pattern already holds only the tenant's
// streams.
func FilterClauses(f audit.Filter) []any {
	term := func(field string, v any) any { return map[string]any{"term": map[string]any{field: v}} }
	clauses := []any{term("tenantId", f.TenantID)}
	if f.From != nil || f.To != nil {
		r := map[string]any{"format": "strict_date_optional_time"}
		if f.From != nil {
			r["gte"] = audit.NewTimestamp(*f.From).String()
		}
		if f.To != nil {
			r["lt"] = audit.NewTimestamp(*f.To).String()
		}
		clauses = append(clauses, map[string]any{"range": map[string]any{"@timestamp": r}})
	}
	if f.ActorID != "" {
		clauses = append(clauses, term("actor.id", f.ActorID))
	}
	if f.ActorEmail != "" {
		clauses = append(clauses, term("actor.email", f.ActorEmail))
	}
	if len(f.Actions) > 0 {
		clauses = append(clauses, map[string]any{"terms": map[string]any{"action": f.Actions}})
	}
	if len(f.ResourceTypes) > 0 {
		clauses = append(clauses, map[string]any{"terms": map[string]any{"resource.type": f.ResourceTypes}})
	}
	if f.ResourceID != "" {
		clauses = append(clauses, term("resource.id", f.ResourceID))
	}
	if len(f.EventIDs) > 0 {
		clauses = append(clauses, map[string]any{"terms": map[string]any{"id": f.EventIDs}})
	}
	if f.HideSystem {
		clauses = append(clauses, map[string]any{"bool": map[string]any{"must_not": []any{map[string]any{"terms": map[string]any{"resource.type": audit.SystemResourceTypes}}}}})
	}
	if f.RestoredFrom != "" {
		clauses = append(clauses, term("restoredFrom", f.RestoredFrom))
	}
	if f.CrossTenant != nil {
		clauses = append(clauses, term("crossTenant", *f.CrossTenant))
	}
	if f.Category != "" {
		clauses = append(clauses, term("category", f.Category))
	}
	if f.Outcome != "" {
		clauses = append(clauses, term("outcome", f.Outcome))
	}
	for _, t := range f.Terms {
		clauses = append(clauses, termClause(t))
	}
	for _, v := range search.FreeText(f.Q) {
		clauses = append(clauses, textClause("text", "search", v))
	}
	return clauses
}

// SortClause sorts by the field, then the event id, both in the order's
// direction.
func SortClause(s audit.Sort) []any {
	dir := "asc"
	if s.Desc {
		dir = "desc"
	}
	return []any{
		map[string]any{sortFieldOf(s.Field): map[string]any{"order": dir}},
		map[string]any{"id": map[string]any{"order": dir}},
	}
}

// SearchBody is the _search request of a page query: from (page numbers)
// or search_after (cursor), size, the filter and the sort. Golden files
// pin it.
func SearchBody(q audit.Query, from, size int) map[string]any {
	clauses := FilterClauses(q.Filter)
	var tth any = audit.MaxWindow
	if q.ExactTotal {
		tth = true
	}
	if _, known := q.KnownTotal(); known {
		// The total came with the cursor (or none is shown): nothing to
		// count. On the
		// timestamp (the primary index sort), a range bounded by the
		// cursor lets Elasticsearch seek straight to the position instead
		// of stepping over every earlier event.
		tth = false
		if q.Sort.Field == audit.SortTimestamp && q.After != nil {
			bound := "gte"
			if q.Sort.Desc {
				bound = "lte"
			}
			clauses = append(clauses, map[string]any{"range": map[string]any{
				"@timestamp": map[string]any{bound: q.After.Millis, "format": "epoch_millis"}}})
		}
	}
	body := map[string]any{
		"size":             size,
		"query":            map[string]any{"bool": map[string]any{"filter": clauses}},
		"sort":             SortClause(q.Sort),
		"track_total_hits": tth,
	}
	if q.After != nil {
		var key any = q.After.Key
		if q.Sort.Field == audit.SortTimestamp {
			key = q.After.Millis
		}
		body["search_after"] = []any{key, q.After.ID}
	} else if from > 0 {
		body["from"] = from
	}
	return body
}

// searchPath is the _search of a tenant's streams; a tenant without data
// yet is an empty result, not an error.
func (s *Store) searchPath(ctx context.Context, tenantID string) (string, error) {
	return s.tenantPath(ctx, tenantID, "_search")
}

// tenantPath is an endpoint over every stream the tenant's events are
// read from (its dedicated streams and, where it has data there, its
// plan's shared stream): the tenant term of every query keeps the shared
// streams' other tenants out.
func (s *Store) tenantPath(ctx context.Context, tenantID, endpoint string) (string, error) {
	pattern, err := s.readPattern(ctx, tenantID)
	if err != nil {
		return "", err
	}
	return "/" + pattern + "/" + endpoint + "?ignore_unavailable=true&allow_no_indices=true", nil
}

type searchResponse struct {
	Hits struct {
		Total struct {
			Value    int64  `json:"value"`
			Relation string `json:"relation"`
		} `json:"total"`
		Hits []struct {
			Source json.RawMessage `json:"_source"`
		} `json:"hits"`
	} `json:"hits"`
	Aggregations json.RawMessage `json:"aggregations"`
}

// SearchEvents implements audit.EventReader.
func (s *Store) SearchEvents(ctx context.Context, q audit.Query) (audit.Result, error) {
	from, size := 0, q.PageSize
	if q.After == nil {
		var err error
		if from, err = q.Window(); err != nil {
			return audit.Result{}, err
		}
	}
	if q.After != nil || q.NoTotal {
		size++ // no count to go by: one more tells whether another page follows
	}
	if q.Fresh {
		if err := s.Refresh(ctx, q.Filter.TenantID); err != nil {
			return audit.Result{}, err
		}
	}
	out, err := s.searchPage(ctx, q.Filter.TenantID, SearchBody(q, from, size))
	if err != nil {
		return audit.Result{}, err
	}
	res := audit.Result{Total: audit.Total{Value: out.Total, Relation: out.Relation}}
	if t, ok := q.KnownTotal(); ok {
		res.Total = t
	}
	hits := out.Sources
	if q.After != nil || q.NoTotal {
		res.HasMore = len(hits) > q.PageSize
		if res.HasMore {
			hits = hits[:q.PageSize]
		}
	} else {
		res.HasMore = int64(from+len(hits)) < res.Total.Value || (res.Total.Relation == audit.TotalAtLeast && len(hits) == q.PageSize)
	}
	res.HasMore = res.HasMore || out.Cut
	res.Events = make([]audit.Event, 0, len(hits))
	var last audit.Position
	for _, h := range hits {
		e, bad := readSource(h, q.Filter.TenantID, q.Sort)
		if bad != nil {
			res.Unreadable, last = append(res.Unreadable, *bad), bad.Position
			continue
		}
		res.Events, last = append(res.Events, e), audit.PositionOf(&e, q.Sort)
	}
	if len(hits) > 0 && res.HasMore {
		res.Next = &last
	}
	return res, nil
}

// GetEvent implements audit.EventReader. Only the tenant's own streams
// are searched, so another tenant's event is simply not found.
func (s *Store) GetEvent(ctx context.Context, tenantID, id string) (audit.Event, error) {
	src, err := s.eventSource(ctx, tenantID, id)
	if err != nil {
		return audit.Event{}, err
	}
	e, bad := readSource(src, tenantID, audit.DefaultSort)
	if bad != nil {
		return audit.Event{}, audit.UnreadableError([]audit.UnreadableEvent{*bad})
	}
	return e, nil
}

// readSource decodes a stored document of tenant for a read: one that is
// no event of the tenant (edited behind the service) is named unreadable,
// with what can be read of its id and sort key, never a failure of the
// read, nor another tenant's event shown.
func readSource(src []byte, tenant string, so audit.Sort) (audit.Event, *audit.UnreadableEvent) {
	return readWith(src, tenant, so, DecodeSource)
}

// readEvent is readSource for the export scan, which needs only the
// event: decodeStoredEvent checks the store's own members as
// DecodeSource does without keeping them, so both name the same
// documents unreadable.
func readEvent(src []byte, tenant string, so audit.Sort) (audit.Event, *audit.UnreadableEvent) {
	return readWith(src, tenant, so, func(src []byte) (audit.Event, error) {
		e, err := decodeStoredEvent(src)
		if err != nil {
			return audit.Event{}, audit.Wrap(audit.EINTERNAL, err, "decoding a stored event")
		}
		return e, nil
	})
}

func readWith(src []byte, tenant string, so audit.Sort, decode func([]byte) (audit.Event, error)) (audit.Event, *audit.UnreadableEvent) {
	e, err := decode(src)
	if err == nil && e.ID != "" && audit.NormalizeTenantID(e.TenantID) == tenant {
		return e, nil
	}
	var loose struct {
		Timestamp audit.Timestamp `json:"@timestamp"`
		ID        string          `json:"id"`
		Actor     struct {
			Email string `json:"email"`
		} `json:"actor"`
		Action   audit.Action `json:"action"`
		Resource struct {
			Type string `json:"type"`
		} `json:"resource"`
	}
	_ = json.Unmarshal(src, &loose)
	reason := "the stored document holds an event of another tenant"
	if err != nil {
		reason = "the stored document does not decode: " + audit.ErrorMessage(err)
	}
	stub := audit.Event{ID: loose.ID, Timestamp: loose.Timestamp, Actor: audit.Actor{Email: loose.Actor.Email}, Action: loose.Action,
		Resource: audit.Resource{Type: loose.Resource.Type}}
	return audit.Event{}, &audit.UnreadableEvent{ID: loose.ID, Reason: reason, Position: audit.PositionOf(&stub, so)}
}

// eventSource is the stored document of a tenant's event. Errors:
// ENOTFOUND, EUNAVAILABLE.
func (s *Store) eventSource(ctx context.Context, tenantID, id string) (json.RawMessage, error) {
	var out searchResponse
	body := map[string]any{"size": 1, "query": map[string]any{"bool": map[string]any{"filter": []any{
		map[string]any{"term": map[string]any{"tenantId": tenantID}},
		map[string]any{"term": map[string]any{"id": id}},
	}}}}
	path, err := s.searchPath(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	if err := s.c.DoJSON(ctx, http.MethodPost, path, body, &out); err != nil {
		return nil, err
	}
	if len(out.Hits.Hits) == 0 {
		return nil, audit.Errorf(audit.ENOTFOUND, "no audit event %s", id)
	}
	return out.Hits.Hits[0].Source, nil
}

// StatsBody is the aggregation request of a stats query.
func StatsBody(q stats.Query) map[string]any {
	groups := func() map[string]any {
		return map[string]any{"terms": map[string]any{"field": string(q.GroupBy), "size": q.MaxGroups}}
	}
	aggs := map[string]any{}
	if q.Interval > 0 {
		h := map[string]any{"field": "@timestamp", "fixed_interval": stats.FormatInterval(q.Interval), "min_doc_count": 0}
		if q.Filter.From != nil && q.Filter.To != nil {
			h["extended_bounds"] = map[string]any{"min": q.Filter.From.UnixMilli(), "max": q.Filter.To.UnixMilli() - 1}
		}
		hist := map[string]any{"date_histogram": h}
		if q.GroupBy != "" {
			hist["aggs"] = map[string]any{"groups": groups()}
		}
		aggs["histogram"] = hist
	}
	if q.GroupBy != "" {
		aggs["groups"] = groups()
	}
	body := map[string]any{
		"size":             0,
		"track_total_hits": true,
		"query":            map[string]any{"bool": map[string]any{"filter": FilterClauses(q.Filter)}},
	}
	if len(aggs) > 0 {
		body["aggs"] = aggs
	}
	return body
}

type termsAgg struct {
	Buckets []struct {
		Key      string `json:"key"`
		DocCount int64  `json:"doc_count"`
	} `json:"buckets"`
}

func (t termsAgg) groups() []stats.Group {
	out := make([]stats.Group, len(t.Buckets))
	for i, b := range t.Buckets {
		out[i] = stats.Group{Key: b.Key, Count: b.DocCount}
	}
	return out
}

// EventSpan implements audit.EventReader with min and max aggregations.
func (s *Store) EventSpan(ctx context.Context, f audit.Filter) (audit.Span, error) {
	body := map[string]any{
		"size": 0, "track_total_hits": false,
		"query": map[string]any{"bool": map[string]any{"filter": FilterClauses(f)}},
		"aggs": map[string]any{
			"first": map[string]any{"min": map[string]any{"field": "@timestamp"}},
			"last":  map[string]any{"max": map[string]any{"field": "@timestamp"}},
		},
	}
	var out struct {
		Aggregations struct {
			First, Last struct {
				Value *float64 `json:"value"`
			}
		} `json:"aggregations"`
	}
	path, err := s.searchPath(ctx, f.TenantID)
	if err != nil {
		return audit.Span{}, err
	}
	if err := s.c.DoJSON(ctx, http.MethodPost, path, body, &out); err != nil {
		return audit.Span{}, err
	}
	a := out.Aggregations
	if a.First.Value == nil || a.Last.Value == nil {
		return audit.Span{}, nil
	}
	return audit.Span{First: time.UnixMilli(int64(*a.First.Value)).UTC(), Last: time.UnixMilli(int64(*a.Last.Value)).UTC(), Any: true}, nil
}

// EventStats implements audit.EventReader with aggregations.
func (s *Store) EventStats(ctx context.Context, q stats.Query) (stats.Stats, error) {
	if q.MaxGroups == 0 {
		q.MaxGroups = 20
	}
	var out searchResponse
	path, err := s.searchPath(ctx, q.Filter.TenantID)
	if err != nil {
		return stats.Stats{}, err
	}
	if err := s.c.DoJSON(ctx, http.MethodPost, path, StatsBody(q), &out); err != nil {
		return stats.Stats{}, err
	}
	st := stats.Stats{Total: out.Hits.Total.Value}
	if len(out.Aggregations) == 0 {
		return st, nil
	}
	var aggs struct {
		Groups    termsAgg `json:"groups"`
		Histogram struct {
			Buckets []struct {
				Key      int64    `json:"key"`
				DocCount int64    `json:"doc_count"`
				Groups   termsAgg `json:"groups"`
			} `json:"buckets"`
		} `json:"histogram"`
	}
	if err := json.Unmarshal(out.Aggregations, &aggs); err != nil {
		return stats.Stats{}, audit.Wrap(audit.EINTERNAL, err, "decoding aggregations")
	}
	if q.GroupBy != "" {
		st.Groups = aggs.Groups.groups()
	}
	if q.Interval > 0 {
		for _, b := range aggs.Histogram.Buckets {
			bk := stats.Bucket{Start: audit.NewTimestamp(time.UnixMilli(b.Key)), Count: b.DocCount}
			if q.GroupBy != "" {
				bk.Groups = b.Groups.groups()
			}
			st.Histogram = append(st.Histogram, bk)
		}
	}
	return st, nil
}
