package elasticsearch

import (
	"context"
	"net/http"
	"net/url"

	"github.com/auditlog/auditlog/audit"
)

// KeysIndex holds the deployment keys the service generates for itself.
func (s *Store) KeysIndex() string { return s.prefix() + "-keys" }

// Key implements audit.KeyStore. The key is created with op_type=create,
// so concurrent first starts agree on one value; the index is created on
// first use with nothing indexed (the documents are only read by id).
func (s *Store) Key(ctx context.Context, name string, fresh []byte) ([]byte, error) {
	doc := "/" + s.KeysIndex() + "/_doc/" + url.PathEscape(name)
	create := "/" + s.KeysIndex() + "/_create/" + url.PathEscape(name) + "?refresh=true"
	res, err := s.c.Do(ctx, http.MethodPut, create, mustJSON(map[string]any{"value": fresh}))
	if err != nil {
		return nil, err
	}
	if res.Status != http.StatusCreated && res.Status != http.StatusConflict {
		return nil, StatusError(http.MethodPut, create, res)
	}
	var out struct {
		Source struct {
			Value []byte `json:"value"`
		} `json:"_source"`
	}
	if err := s.c.DoJSON(ctx, http.MethodGet, doc, nil, &out); err != nil {
		return nil, err
	}
	if len(out.Source.Value) == 0 {
		return nil, audit.Errorf(audit.EINTERNAL, "elasticsearch: key %s is empty", name)
	}
	return out.Source.Value, nil
}
