package sqlite

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/auditlog/auditlog/audit/stats"

	"github.com/auditlog/auditlog/audit"
)

// TestEveryFilterFieldHasAStatsSource: each field of audit.Filter either
// is held by the rollups (rollupFilters) or, set alone, makes stats read
// the events; a new field in neither would be ignored by stats on this
// store. (docs/changing.md, "Add a filter parameter", step 7.)
func TestEveryFilterFieldHasAStatsSource(t *testing.T) {
	typ := reflect.TypeOf(audit.Filter{})
	for i := range typ.NumField() {
		name := typ.Field(i).Name
		if slices.Contains(rollupFilters, name) {
			continue
		}
		var f audit.Filter
		v := reflect.ValueOf(&f).Elem().Field(i)
		switch v.Kind() {
		case reflect.String:
			v.SetString("x")
		case reflect.Slice:
			v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		case reflect.Pointer:
			v.Set(reflect.New(v.Type().Elem()))
		default:
			t.Fatalf("audit.Filter.%s is of a kind this test cannot set: extend it", name)
		}
		if src := statsSource(stats.Query{Filter: f}); !strings.HasPrefix(src.from, "events ") {
			t.Errorf("audit.Filter.%s is neither in rollupFilters nor read from the events: stats would ignore it (reads %q)", name, src.from)
		}
	}
}
