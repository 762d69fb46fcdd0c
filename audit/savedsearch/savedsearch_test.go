package savedsearch_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/internal/testkit/errtest"

	"github.com/auditlog/auditlog/audit/savedsearch"

	"github.com/auditlog/auditlog/audit"
)

func TestSavedSearchRules(t *testing.T) {
	from, to := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		s     savedsearch.Search
		field string // "" when valid
	}{
		{"a relative range", savedsearch.Search{Name: " Grace's changes ", Query: "q=actor%3Agrace*", Range: "7d"}, ""},
		{"a fixed range", savedsearch.Search{Name: "incident", Range: "custom", From: &from, To: &to}, ""},
		{"an open fixed range", savedsearch.Search{Name: "since", Range: "custom", From: &from}, ""},
		{"no name", savedsearch.Search{Name: "  ", Range: "7d"}, "name"},
		{"a long name", savedsearch.Search{Name: strings.Repeat("é", savedsearch.MaxSavedSearchName+1), Range: "7d"}, "name"},
		{"a control character", savedsearch.Search{Name: "a\x00b", Range: "7d"}, "name"},
		{"a long query", savedsearch.Search{Name: "x", Query: strings.Repeat("a", savedsearch.MaxSavedSearchFilter+1), Range: "7d"}, "query"},
		{"an unknown range", savedsearch.Search{Name: "x", Range: "1y"}, "range"},
		{"dates with a relative range", savedsearch.Search{Name: "x", Range: "7d", From: &from}, "range"},
		{"to before from", savedsearch.Search{Name: "x", Range: "custom", From: &to, To: &from}, "to"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.s.Normalize()
			if tc.field == "" {
				if err != nil {
					t.Fatal(err)
				}
				if tc.s.Name != strings.TrimSpace(tc.s.Name) {
					t.Fatalf("name %q not trimmed", tc.s.Name)
				}
				return
			}
			if audit.ErrorCode(err) != audit.EINVALID || strings.Join(errtest.Fields(err), ",") != tc.field {
				t.Fatalf("got %v (fields %v), want EINVALID naming %s", err, errtest.Fields(err), tc.field)
			}
		})
	}
}

func TestSavedSearchListChanges(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	var l savedsearch.Searches
	a, err := l.Save(savedsearch.Search{ID: "a", Name: "Deleted queues", Range: "30d"}, true, t0)
	if err != nil || !a.CreatedAt.Equal(t0) || !a.UpdatedAt.Equal(t0) {
		t.Fatalf("save: %+v %v", a, err)
	}
	if _, err := l.Save(savedsearch.Search{ID: "b", Name: "deleted QUEUES", Range: "7d"}, true, t0); audit.ErrorCode(err) != audit.ECONFLICT {
		t.Fatalf("a second search of the same name (any case): %v, want ECONFLICT", err)
	}
	a2, err := l.Save(savedsearch.Search{ID: "a", Name: "deleted queues", Range: "7d"}, false, t0.Add(time.Hour))
	if err != nil || !a2.CreatedAt.Equal(t0) || !a2.UpdatedAt.Equal(t0.Add(time.Hour)) || len(l.Items) != 1 || l.Items[0].Range != "7d" {
		t.Fatalf("renaming itself in another case and changing the range: %+v %v %+v", a2, err, l.Items)
	}
	if _, err := l.Save(savedsearch.Search{ID: "zz", Name: "n", Range: "7d"}, false, t0); audit.ErrorCode(err) != audit.ENOTFOUND {
		t.Fatalf("replacing a missing one: %v", err)
	}
	for i := 1; i < savedsearch.MaxSavedSearches; i++ {
		if _, err := l.Save(savedsearch.Search{ID: fmt.Sprint("s", i), Name: strings.Repeat("n", i), Range: "7d"}, true, t0); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.Save(savedsearch.Search{ID: "over", Name: "one too many", Range: "7d"}, true, t0); audit.ErrorCode(err) != audit.EINVALID {
		t.Fatalf("beyond %d: %v", savedsearch.MaxSavedSearches, err)
	}
	if err := l.Delete("a"); err != nil || l.Find("a") >= 0 || len(l.Items) != savedsearch.MaxSavedSearches-1 {
		t.Fatalf("delete: %v, %d left", err, len(l.Items))
	}
	if err := l.Delete("a"); audit.ErrorCode(err) != audit.ENOTFOUND {
		t.Fatalf("deleting twice: %v", err)
	}
}
