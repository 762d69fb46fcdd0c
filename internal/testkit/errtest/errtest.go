// Package errtest reads the domain's errors in tests.
package errtest

import (
	"sort"

	"github.com/auditlog/auditlog/audit"
)

// Fields is the fields err names (audit.ErrorFields), sorted.
func Fields(err error) []string {
	var out []string
	for _, f := range audit.ErrorFields(err) {
		out = append(out, f.Field)
	}
	sort.Strings(out)
	return out
}
