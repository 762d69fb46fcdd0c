package elasticsearch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/jsonenc"
)

// pageHits is one list search's answer: the total and the hits' sources,
// in order.
type pageHits struct {
	Total    int64
	Relation string
	Sources  []json.RawMessage
	// Cut: the page stopped early at audit.MaxPageBytes; more hits followed.
	Cut bool
}

// searchPage runs a list search and reads its answer only as far as the
// page needs: at most pageReadLimit bytes, enough for hits up to
// audit.MaxPageBytes and the one that crosses it (the rest of the answer
// is not read), so a page of large events cannot hold a quarter of a
// gigabyte in this process. The exchange is bounded by the client's
// request timeout, as Do bounds it.
func (s *Store) searchPage(ctx context.Context, tenantID string, body map[string]any) (pageHits, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return pageHits{}, audit.Wrap(audit.EINTERNAL, err, "elasticsearch: encoding request")
	}
	ctx, cancel := context.WithTimeout(ctx, s.c.cfg.RequestTimeout)
	defer cancel()
	path, err := s.searchPath(ctx, tenantID)
	if err != nil {
		return pageHits{}, err
	}
	path += "&filter_path=hits.total,hits.hits._source"
	res, err := s.c.Stream(ctx, http.MethodPost, path, raw)
	if err != nil {
		return pageHits{}, err
	}
	defer res.Body.Close()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		b, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
		return pageHits{}, StatusError(http.MethodPost, path, &Response{Status: res.StatusCode, Header: res.Header, Body: b})
	}
	b, err := io.ReadAll(io.LimitReader(res.Body, pageReadLimit+1))
	if err == nil {
		var out pageHits
		if out, err = parsePage(b, len(b) > pageReadLimit); err == nil {
			return out, nil
		}
	}
	if ctx.Err() != nil {
		return pageHits{}, audit.Wrap(audit.EUNAVAILABLE, err, "elasticsearch: the answer did not arrive in time")
	}
	return pageHits{}, audit.Wrap(audit.EUNAVAILABLE, err, "elasticsearch: reading the answer failed")
}

// pageReadLimit bounds what searchPage reads of an answer: the hits that
// fill a page, the one beyond (at most an event's size), and the answer's
// own bytes around them.
const pageReadLimit = audit.MaxPageBytes + 2*audit.MaxEventBytes + 1<<20

// parsePage reads {"hits":{"total":{…},"hits":[{"_source":…},…]}} from
// b, the answer or, when cut, its first pageReadLimit bytes. Hits join
// the page while audit.PageBudget admits them; a hit that b ends inside
// of is one the budget would not have admitted (the bytes before it
// exceed the page), so the page is marked cut there too. Written over
// the bytes with jsonenc's scanner rather than encoding/json's token
// stream, which was the largest part of the API's CPU for a page.
func parsePage(b []byte, cut bool) (pageHits, error) {
	var out pageHits
	var budget audit.PageBudget
	source := func(key string, v int) (int, error) {
		e, err := skipValue(b, v)
		if err != nil || key != "_source" {
			return e, err
		}
		if !budget.Fits(e - v) {
			return e, errPageFull
		}
		out.Sources = append(out.Sources, json.RawMessage(b[v:e]))
		return e, nil
	}
	hits := func(key string, v int) (int, error) {
		switch key {
		case "total":
			e, err := skipValue(b, v)
			if err != nil {
				return e, err
			}
			var t struct {
				Value    int64  `json:"value"`
				Relation string `json:"relation"`
			}
			err = json.Unmarshal(b[v:e], &t)
			out.Total, out.Relation = t.Value, t.Relation
			return e, err
		case "hits":
			return elements(b, v, func(h int) (int, error) { return members(b, h, source) })
		}
		return skipValue(b, v)
	}
	_, err := members(b, 0, func(key string, v int) (int, error) {
		if key != "hits" {
			return skipValue(b, v)
		}
		return members(b, v, hits)
	})
	switch {
	case errors.Is(err, errPageFull):
		out.Cut = true
		return out, nil
	case errors.Is(err, errTruncated) && cut && len(out.Sources) > 0:
		out.Cut = true // the hit b ends in is beyond the budget
		return out, nil
	}
	return out, err
}

// errPageFull stops the reading of a page that reached its budget.
var errPageFull = errors.New("page full")

// errTruncated: the bytes end inside a value.
var errTruncated = errors.New("the answer ends inside a value")

// members reads the object at b[i:], calling f with each key (ES writes
// keys without escapes) and the index of its value; f returns the index
// after the value. It returns the index after the object.
func members(b []byte, i int, f func(key string, v int) (int, error)) (int, error) {
	i = jsonenc.SkipSpace(b, i)
	if i >= len(b) || b[i] != '{' {
		return i, truncatedOr(b, i, "an object")
	}
	for i = jsonenc.SkipSpace(b, i+1); i >= len(b) || b[i] != '}'; {
		ke, ok := jsonenc.ValueEnd(b, i)
		if !ok || b[i] != '"' {
			return i, truncatedOr(b, ke, "an object key")
		}
		key := string(b[i+1 : ke-1])
		if i = jsonenc.SkipSpace(b, ke); i >= len(b) || b[i] != ':' {
			return i, truncatedOr(b, i, "a colon")
		}
		e, err := f(key, jsonenc.SkipSpace(b, i+1))
		if err != nil {
			return e, err
		}
		if i = jsonenc.SkipSpace(b, e); i < len(b) && b[i] == ',' {
			i = jsonenc.SkipSpace(b, i+1)
		}
	}
	return i + 1, nil
}

// elements reads the array at b[i:], calling f with the index of each
// element; f returns the index after it.
func elements(b []byte, i int, f func(e int) (int, error)) (int, error) {
	if i >= len(b) || b[i] != '[' {
		return i, truncatedOr(b, i, "an array")
	}
	for i = jsonenc.SkipSpace(b, i+1); i >= len(b) || b[i] != ']'; {
		e, err := f(i)
		if err != nil {
			return e, err
		}
		if i = jsonenc.SkipSpace(b, e); i < len(b) && b[i] == ',' {
			i = jsonenc.SkipSpace(b, i+1)
		}
	}
	return i + 1, nil
}

// skipValue returns the index after the value at b[i:].
func skipValue(b []byte, i int) (int, error) {
	e, ok := jsonenc.ValueEnd(b, i)
	if !ok {
		return e, truncatedOr(b, e, "a value")
	}
	return e, nil
}

// truncatedOr is errTruncated when the bytes end at i, else a syntax
// error naming what was expected there.
func truncatedOr(b []byte, i int, what string) error {
	if i >= len(b) {
		return errTruncated
	}
	return fmt.Errorf("expected %s at byte %d", what, i)
}
