package elasticsearch

import (
	"context"
	"encoding/json"
	"net/http"
)

// pageHit is one document of a search answer: its _id, its source and the
// sort values a next page starts after.
type pageHit struct {
	ID     string          `json:"_id"`
	Source json.RawMessage `json:"_source"`
	Fields json.RawMessage `json:"fields"`
	Sort   json.RawMessage `json:"sort"`
}

// searchPages reads every hit of body's query at path, size at a time,
// each page after the last hit of the one before (search_after: body must
// sort on a total order, such as _doc or fields ending in a unique one),
// and hands each non-empty page to fn. An error of the search or of fn
// ends the reading and is returned as it is (callers tell ENOTFOUND).
func (s *Store) searchPages(ctx context.Context, path string, body map[string]any, size int, fn func([]pageHit) error) error {
	body["size"], body["track_total_hits"] = size, false
	for {
		var page struct {
			Hits struct {
				Hits []pageHit `json:"hits"`
			} `json:"hits"`
		}
		if err := s.c.DoJSON(ctx, http.MethodPost, path, body, &page); err != nil {
			return err
		}
		hits := page.Hits.Hits
		if len(hits) > 0 {
			if err := fn(hits); err != nil {
				return err
			}
		}
		if len(hits) < size {
			return nil
		}
		body["search_after"] = hits[len(hits)-1].Sort
	}
}
