package sqlite

import (
	"context"
	"encoding/json"

	"github.com/auditlog/auditlog/audit/savedsearch"

	"github.com/auditlog/auditlog/audit"
)

func setSavedRev(l *savedsearch.Searches, rev string) { l.Rev = rev }

// SavedSearches implements savedsearch.Store.
func (s *Store) SavedSearches(ctx context.Context, tenantID, userID string) (savedsearch.Searches, error) {
	l, found, err := getRevisioned(ctx, s, setSavedRev, "the saved searches of "+userID,
		`SELECT body, rev FROM saved_searches WHERE tenant_id = ? AND user_id = ?`, tenantID, userID)
	if err != nil || !found {
		return savedsearch.Searches{TenantID: tenantID, UserID: userID}, err
	}
	return l, nil
}

// PutSavedSearches implements savedsearch.Store.
func (s *Store) PutSavedSearches(ctx context.Context, l *savedsearch.Searches) error {
	what := "the saved searches of " + l.UserID
	body, err := json.Marshal(l)
	if err != nil {
		return audit.Wrap(audit.EINTERNAL, err, "sqlite: encoding %s", what)
	}
	if l.Rev == "" {
		created, err := s.insertOnce(ctx, what, `INSERT INTO saved_searches (tenant_id, user_id, rev, body) VALUES (?, ?, 1, ?) ON CONFLICT DO NOTHING`,
			l.TenantID, l.UserID, body)
		if err != nil {
			return err
		}
		if !created {
			return audit.Errorf(audit.ECONFLICT, "%s changed meanwhile", what)
		}
		l.Rev = "1"
		return nil
	}
	rev, err := s.updateIfUnchanged(ctx, `UPDATE saved_searches SET rev = rev + 1, body = ? WHERE tenant_id = ? AND user_id = ? AND rev = ?`,
		[]any{body, l.TenantID, l.UserID}, l.Rev, what, nil)
	if err != nil {
		return err
	}
	l.Rev = rev
	return nil
}
