package elasticsearch

import (
	"context"

	"github.com/auditlog/auditlog/audit/savedsearch"

	"github.com/auditlog/auditlog/audit"
)

// SavedSearchesIndex holds each user's saved searches, one document per
// tenant and user (id "tenant/user"), only ever read by id.
func (s *Store) SavedSearchesIndex() string { return s.prefix() + "-saved-searches" }

func savedDocID(tenantID, userID string) string { return tenantID + "/" + userID }

// SavedSearches implements savedsearch.Store.
func (s *Store) SavedSearches(ctx context.Context, tenantID, userID string) (savedsearch.Searches, error) {
	l, rev, found, err := getDoc[savedsearch.Searches](ctx, s, s.SavedSearchesIndex(), savedDocID(tenantID, userID), "the saved searches of "+userID)
	if err != nil || !found {
		return savedsearch.Searches{TenantID: tenantID, UserID: userID}, err
	}
	l.Rev = rev
	return l, nil
}

// PutSavedSearches implements savedsearch.Store.
func (s *Store) PutSavedSearches(ctx context.Context, l *savedsearch.Searches) error {
	what, id := "the saved searches of "+l.UserID, savedDocID(l.TenantID, l.UserID)
	if l.Rev == "" {
		rev, created, err := s.createDoc(ctx, s.SavedSearchesIndex(), id, what, l, false)
		if err != nil {
			return err
		}
		if !created {
			return audit.Errorf(audit.ECONFLICT, "%s changed meanwhile", what)
		}
		l.Rev = rev
		return nil
	}
	rev, err := s.putIfUnchanged(ctx, s.SavedSearchesIndex(), id, l.Rev, what, l, nil)
	if err != nil {
		return err
	}
	l.Rev = rev
	return nil
}
