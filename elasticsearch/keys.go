package elasticsearch

import (
	"context"
	"net/http"

	"github.com/auditlog/auditlog/audit"
)

// KeysIndex is where versions before issue 53 kept the keys they
// generated; this one reads no key from it.
func (s *Store) KeysIndex() string { return s.prefix() + "-keys" }

// KeyRows implements audit.KeyRows: the ids of the documents of the keys
// index (none when it does not exist).
func (s *Store) KeyRows(ctx context.Context) ([]string, error) {
	var res struct {
		Hits struct {
			Hits []struct {
				ID string `json:"_id"`
			} `json:"hits"`
		} `json:"hits"`
	}
	body := map[string]any{"size": 1000, "_source": false, "sort": []any{"_doc"}}
	if err := s.c.DoJSON(ctx, http.MethodPost, "/"+s.KeysIndex()+"/_search?ignore_unavailable=true&allow_no_indices=true", body, &res); err != nil {
		return nil, audit.Wrap(audit.EUNAVAILABLE, err, "elasticsearch: reading the keys index")
	}
	out := make([]string, len(res.Hits.Hits))
	for i, h := range res.Hits.Hits {
		out[i] = h.ID
	}
	return out, nil
}
