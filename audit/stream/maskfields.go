package stream

import "github.com/auditlog/auditlog/audit"

// MaskFields are the fields of personal data a stream can hash or drop:
// the Personal fields of audit.EventFields (who acted, from where, with
// what), so that a personal field added there can be masked at once
// (issue 54: a new personal field could not be).
var MaskFields = func() []string {
	var out []string
	for i := range audit.EventFields {
		if f := &audit.EventFields[i]; f.Personal {
			out = append(out, f.Name)
		}
	}
	return out
}()
