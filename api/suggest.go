package api

import (
	"context"
	"github.com/auditlog/auditlog/audit/search"

	"github.com/auditlog/auditlog/audit"
)

// Suggestion is a search that finds events where the one asked found
// none (search.Alternatives), with how many it finds.
type Suggestion struct {
	Q     string      `json:"q"`
	Total audit.Total `json:"total"`
}

// suggest counts the alternatives of the search q under the rest of the
// filter f, and returns those that find something. It runs only for a
// first page that found nothing, at most search.MaxAlternatives counts;
// a count that fails is left out (the answer the user asked for stands).
func (s *Server) suggest(ctx context.Context, q string, f audit.Filter) []Suggestion {
	var out []Suggestion
	for _, alt := range search.Alternatives(q) {
		g := f
		var err error
		if g.Q, g.Terms, err = search.Parse(alt); err != nil {
			continue
		}
		res, err := s.read.Reader.SearchEvents(ctx, audit.Query{Filter: g, Sort: audit.DefaultSort, PageSize: 1, Page: 1})
		if err != nil || res.Total.Value == 0 {
			continue
		}
		out = append(out, Suggestion{Q: alt, Total: res.Total})
	}
	return out
}
