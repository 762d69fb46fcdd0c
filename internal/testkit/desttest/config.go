package desttest

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/stream"
)

// ConfigCase is one destination as the API takes it (the JSON object of
// a stream's "destination") and what the check says of it.
type ConfigCase struct {
	Name  string
	JSON  string
	Rules stream.Rules
	Field string // the field named, "" when the destination is valid
}

// CheckConfigs decodes each case's destination as the API does (into
// its kind's registered settings) and holds the stream's check to the
// field the case names, or to none.
func CheckConfigs(t *testing.T, cases []ConfigCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			var c stream.Config
			if err := json.Unmarshal([]byte(`{"name":"SIEM","destination":`+tc.JSON+`}`), &c); err != nil {
				t.Fatalf("decoding %s: %v", tc.JSON, err)
			}
			s := stream.Stream{Name: c.Name, Destination: c.Destination}
			err := s.Normalize(tc.Rules)
			if tc.Field == "" {
				if err != nil {
					t.Fatalf("refused: %v %+v", err, audit.ErrorFields(err))
				}
				return
			}
			fields := audit.ErrorFields(err)
			if audit.ErrorCode(err) != audit.EINVALID || !slices.ContainsFunc(fields, func(f audit.FieldError) bool { return f.Field == tc.Field }) {
				t.Fatalf("got %v (%+v), want EINVALID naming %s", err, fields, tc.Field)
			}
		})
	}
}
