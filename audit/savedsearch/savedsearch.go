package savedsearch

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/auditlog/auditlog/audit"
)

// Bounds of saved searches.
const (
	MaxSavedSearches     = 50
	MaxSavedSearchName   = 80   // characters
	MaxSavedSearchFilter = 2048 // bytes of the query string
)

// Ranges are the relative ranges a saved search can keep: a window
// ending when it is opened. "custom" keeps From and To.
var Ranges = []string{"24h", "7d", "30d", "all", "custom"}

// Search is one named search.
type Search struct {
	ID        string     `json:"id"`
	Name      string     `json:"name"`
	Query     string     `json:"query"` // the list's filter parameters, URL-encoded: "q=actor%3Agrace*&action=update"
	Range     string     `json:"range"`
	From      *time.Time `json:"from,omitempty"`
	To        *time.Time `json:"to,omitempty"`
	CreatedAt time.Time  `json:"createdAt"`
	UpdatedAt time.Time  `json:"updatedAt"`
}

// Searches is one user's list, changed by compare-and-set on Rev.
type Searches struct {
	TenantID string   `json:"tenantId"`
	UserID   string   `json:"userId"`
	Items    []Search `json:"items"`
	Rev      string   `json:"-"` // "" before the first write
}

// Store keeps each user's saved searches.
type Store interface {
	// Searches returns the user's list (empty, Rev "", when the user
	// never saved one). Errors: EUNAVAILABLE.
	SavedSearches(ctx context.Context, tenantID, userID string) (Searches, error)
	// PutSavedSearches writes l when it is unchanged since it was read
	// (Rev; "" creates it), and sets its new Rev. Errors: ECONFLICT when
	// it changed meanwhile, EUNAVAILABLE.
	PutSavedSearches(ctx context.Context, l *Searches) error
}

// Normalize trims the name and checks every rule of s but its query's
// parameters (the HTTP layer parses those, as it parses the list's): a
// name of 1 to MaxSavedSearchName printable characters, a query of at
// most MaxSavedSearchFilter bytes, a known range, and From and To only
// with "custom", From before To. Errors: EINVALID naming each field.
func (s *Search) Normalize() error {
	s.Name = strings.TrimSpace(s.Name)
	var errs []audit.FieldError
	fail := func(field, format string, args ...any) {
		errs = append(errs, audit.FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	switch n := utf8.RuneCountInString(s.Name); {
	case n == 0:
		fail("name", "is required")
	case n > MaxSavedSearchName:
		fail("name", "has %d characters; at most %d", n, MaxSavedSearchName)
	case strings.IndexFunc(s.Name, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0:
		fail("name", "holds a control character")
	}
	if len(s.Query) > MaxSavedSearchFilter {
		fail("query", "has %d bytes; at most %d", len(s.Query), MaxSavedSearchFilter)
	}
	if !slices.Contains(Ranges, s.Range) {
		fail("range", "must be one of %s", strings.Join(Ranges, ", "))
	} else if s.Range != "custom" && (s.From != nil || s.To != nil) {
		fail("range", "from and to are only kept with the custom range")
	}
	if s.From != nil && s.To != nil && !s.From.Before(*s.To) {
		fail("to", "must be after from")
	}
	if len(errs) > 0 {
		return &audit.Error{Code: audit.EINVALID, Message: "invalid saved search", Fields: errs}
	}
	return nil
}

// Find returns the index of the search with id, or -1.
func (l *Searches) Find(id string) int {
	for i, s := range l.Items {
		if s.ID == id {
			return i
		}
	}
	return -1
}

// Save adds s (a new id) or replaces the search with s's id, keeping its
// creation time; names are unique in a list, case-insensitively. Errors:
// ENOTFOUND for an id not in the list, ECONFLICT for a name another
// search has, EINVALID beyond MaxSavedSearches.
func (l *Searches) Save(s Search, isNew bool, now time.Time) (Search, error) {
	for _, o := range l.Items {
		if o.ID != s.ID && strings.EqualFold(o.Name, s.Name) {
			return s, &audit.Error{Code: audit.ECONFLICT, Message: "a saved search has this name", Fields: []audit.FieldError{{Field: "name", Message: fmt.Sprintf("%q is the name of saved search %s", o.Name, o.ID)}}}
		}
	}
	s.UpdatedAt = now.UTC()
	i := l.Find(s.ID)
	switch {
	case isNew && len(l.Items) >= MaxSavedSearches:
		return s, &audit.Error{Code: audit.EINVALID, Message: "too many saved searches", Fields: []audit.FieldError{{Field: "name", Message: fmt.Sprintf("a user keeps at most %d saved searches; delete one first", MaxSavedSearches)}}}
	case isNew:
		s.CreatedAt = s.UpdatedAt
		l.Items = append(l.Items, s)
	case i < 0:
		return s, audit.Errorf(audit.ENOTFOUND, "no saved search %s", s.ID)
	default:
		s.CreatedAt = l.Items[i].CreatedAt
		l.Items[i] = s
	}
	return s, nil
}

// Delete removes the search with id. Errors: ENOTFOUND.
func (l *Searches) Delete(id string) error {
	i := l.Find(id)
	if i < 0 {
		return audit.Errorf(audit.ENOTFOUND, "no saved search %s", id)
	}
	l.Items = append(l.Items[:i], l.Items[i+1:]...)
	return nil
}
