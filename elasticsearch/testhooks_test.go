package elasticsearch

import (
	"context"
	"encoding/json"
	"net/url"

	"github.com/auditlog/auditlog/audit"
)

// SetAfterScan runs fn between the lifecycle pass's read of an index it
// retires and its re-read of the legal holds (Store.afterScan).
func SetAfterScan(s *Store, fn func(idx string)) { s.afterScan = fn }

// OldDocument is e's document as mapping version 5 wrote it: no text or
// reasonWords, the reason as reasonText (its other texts reached search
// through the old mapping's copy_to).
func OldDocument(e *audit.Event) []byte {
	var m map[string]any
	if err := json.Unmarshal(appendDoc(nil, e, nil), &m); err != nil {
		panic(err)
	}
	delete(m, "text")
	delete(m, "reasonWords")
	if e.Reason != "" {
		m["reasonText"] = e.Reason
	}
	b, _ := json.Marshal(m)
	return b
}

// RoundState reads the tenant's log state as a sealing round does (with
// its last round's leaves, through the committed-state cache): its leaves'
// event ids.
func RoundState(ctx context.Context, s *Store, tenant string) ([]string, error) {
	st, _, err := s.readState(ctx, tenant, true)
	ids := make([]string, len(st.Leaves))
	for i, l := range st.Leaves {
		ids[i] = l.ID
	}
	return ids, err
}

// StatePath is the path of the tenant's log state document.
func StatePath(s *Store, tenant string) string {
	return "/" + s.TlogIndex() + "/_doc/" + url.PathEscape(stateID(tenant))
}
