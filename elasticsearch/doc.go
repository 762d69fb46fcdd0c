package elasticsearch

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/auditlog/auditlog/audit"
)

// The small revisioned stores (export jobs and their admission, restore
// requests, periodic-export state, keys) keep one JSON document per
// entity under a known id, and change it by compare-and-set on _seq_no
// and _primary_term. These four helpers are the one way they do it:
// getDoc, createDoc, putIfUnchanged and hit for search results.

// revision is what every answer about one document says of its version.
type revision struct {
	SeqNo       int64 `json:"_seq_no"`
	PrimaryTerm int64 `json:"_primary_term"`
}

func (r revision) String() string {
	return strconv.FormatInt(r.SeqNo, 10) + ":" + strconv.FormatInt(r.PrimaryTerm, 10)
}

// hit is one document as a get or a search (with seq_no_primary_term)
// returns it.
type hit[T any] struct {
	revision
	Found  bool `json:"found"`
	Source T    `json:"_source"`
}

// revOf is the revision a write answered with.
func revOf(res *Response) string {
	var r revision
	_ = json.Unmarshal(res.Body, &r)
	return r.String()
}

// getDoc reads document docID of index: its source and revision, or
// found false when there is none. what names it in errors.
func getDoc[T any](ctx context.Context, s *Store, index, docID, what string) (v T, rev string, found bool, err error) {
	return getPath[T](ctx, s, "/"+index+"/_doc/"+url.PathEscape(docID), what)
}

// getPath is getDoc of a document's full path (with query parameters).
func getPath[T any](ctx context.Context, s *Store, path, what string) (v T, rev string, found bool, err error) {
	res, err := s.c.Do(ctx, http.MethodGet, path, nil)
	if err != nil {
		return v, "", false, err
	}
	if res.Status == http.StatusNotFound {
		return v, "", false, nil
	}
	if res.Status != http.StatusOK {
		return v, "", false, StatusError(http.MethodGet, what, res)
	}
	var h hit[T]
	if err := json.Unmarshal(res.Body, &h); err != nil {
		return v, "", false, audit.Wrap(audit.EINTERNAL, err, "decoding %s", what)
	}
	if !h.Found {
		return v, "", false, nil
	}
	return h.Source, h.revision.String(), true, nil
}

// createDoc writes doc as document docID of index unless one has that id
// (op_type create, so concurrent creators agree on one): it returns the
// new revision, or created false when the document exists. With refresh,
// searches see it when it returns (reads by id always do).
func (s *Store) createDoc(ctx context.Context, index, docID, what string, doc any, refresh bool) (rev string, created bool, err error) {
	path := "/" + index + "/_create/" + url.PathEscape(docID)
	if refresh {
		path += "?refresh=true"
	}
	res, err := s.c.Do(ctx, http.MethodPut, path, mustJSON(doc))
	if err != nil {
		return "", false, err
	}
	switch res.Status {
	case http.StatusCreated:
		return revOf(res), true, nil
	case http.StatusConflict:
		return "", false, nil
	}
	return "", false, StatusError(http.MethodPut, what, res)
}

// putIfUnchanged replaces document docID of index with doc when its
// revision is still rev, and returns the new revision. When the document
// changed meanwhile it returns ECONFLICT, unless exists (nil: not asked)
// says it is gone (ENOTFOUND for another tenant's or a deleted one).
func (s *Store) putIfUnchanged(ctx context.Context, index, docID, rev, what string, doc any, exists func() error) (string, error) {
	return s.casPut(ctx, index, docID, rev, what, doc, true, exists)
}

// casPut is putIfUnchanged, with the refresh that makes the new document
// searchable at once, or without it (refresh false: a document only read
// by id, as the log's state).
func (s *Store) casPut(ctx context.Context, index, docID, rev, what string, doc any, refresh bool, exists func() error) (string, error) {
	seq, term, ok := strings.Cut(rev, ":")
	if !ok {
		return "", audit.Errorf(audit.ECONFLICT, "%s: unknown revision %q", what, rev)
	}
	path := fmt.Sprintf("/%s/_doc/%s?if_seq_no=%s&if_primary_term=%s&refresh=%t", index, url.PathEscape(docID), url.QueryEscape(seq), url.QueryEscape(term), refresh)
	res, err := s.c.Do(ctx, http.MethodPut, path, mustJSON(doc))
	if err != nil {
		return "", err
	}
	switch res.Status {
	case http.StatusOK, http.StatusCreated:
		return revOf(res), nil
	case http.StatusConflict:
		if exists != nil {
			if err := exists(); err != nil {
				return "", err
			}
		}
		return "", audit.Errorf(audit.ECONFLICT, "%s changed since it was read", what)
	}
	return "", StatusError(http.MethodPut, what, res)
}
