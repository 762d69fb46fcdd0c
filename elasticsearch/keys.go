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
	type key struct {
		Value []byte `json:"value"`
	}
	if _, _, err := s.createDoc(ctx, s.KeysIndex(), name, "key "+name, key{Value: fresh}, true); err != nil {
		return nil, err
	}
	k, _, found, err := getDoc[key](ctx, s, s.KeysIndex(), name, "key "+name)
	if err != nil {
		return nil, err
	}
	if !found || len(k.Value) == 0 {
		return nil, audit.Errorf(audit.EINTERNAL, "elasticsearch: key %s is empty", name)
	}
	return k.Value, nil
}

// StoredKey implements audit.KeyStore.
func (s *Store) StoredKey(ctx context.Context, name string) ([]byte, bool, error) {
	type key struct {
		Value []byte `json:"value"`
	}
	k, _, found, err := getDoc[key](ctx, s, s.KeysIndex(), name, "key "+name)
	if err != nil || !found {
		return nil, false, err
	}
	return k.Value, true, nil
}

// DeleteKey implements audit.KeyStore: the document goes, and with
// refresh=true, so no search of the index finds it afterwards.
func (s *Store) DeleteKey(ctx context.Context, name string) error {
	res, err := s.c.Do(ctx, http.MethodDelete, "/"+s.KeysIndex()+"/_doc/"+url.PathEscape(name)+"?refresh=true", nil)
	if err != nil {
		return err
	}
	if res.Status != http.StatusOK && res.Status != http.StatusNotFound {
		return StatusError(http.MethodDelete, "key "+name, res)
	}
	return nil
}
