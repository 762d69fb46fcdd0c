package elasticsearch

import (
	"encoding/json"

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
