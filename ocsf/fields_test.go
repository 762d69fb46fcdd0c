package ocsf_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/auditlog/auditlog/internal/testkit/schematest"
	"github.com/auditlog/auditlog/ocsf"
)

// ocsfPlaces are the fields an OCSF attribute holds, for the event of
// schematest.Full (an update: API Activity). Every other field of the
// event must be in unmapped under its own name: the table need not name
// it, so a field added to audit.Event is checked here with nothing to
// add (issue 54: the encoder listed its leftovers by hand and dropped a
// new one with every test green).
var ocsfPlaces = schematest.Place{
	"id": "metadata.uid", "timestamp": "time_dt", "tenantId": "metadata.tenant_uid", "requestId": "metadata.correlation_uid",
	"actor.id": "actor.user.uid", "actor.email": "actor.user.email_addr", "actor.ip": "src_endpoint.ip", "actor.userAgent": "http_request.user_agent",
	"resource.type": "resources.0.type", "resource.id": "resources.0.uid",
	"action":  schematest.Omit("the class's activity (activity_id, activity_name, api.operation)"),
	"outcome": schematest.Omit("status and status_id"),
}

// TestEveryFieldInOCSF: every field of the event is in its OCSF form, in
// the attribute OCSF has for it or in unmapped.
func TestEveryFieldInOCSF(t *testing.T) {
	e := schematest.Full(t)
	out, err := ocsf.Encode(e, 7)
	if err != nil {
		t.Fatal(err)
	}
	place := schematest.Place{}
	for _, l := range schematest.Leaves(e) {
		if where, ok := ocsfPlaces[l.Path]; ok {
			place[l.Path] = where
		} else {
			place[l.Path] = "unmapped." + l.Path
		}
	}
	var doc map[string]any
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	lookup := func(path string) (any, bool) {
		if key, ok := strings.CutPrefix(path, "unmapped."); ok { // unmapped's names hold dots
			v, ok := doc["unmapped"].(map[string]any)[key]
			return v, ok
		}
		var v any = doc
		for _, part := range strings.Split(path, ".") {
			switch c := v.(type) {
			case map[string]any:
				v = c[part]
			case []any:
				i, err := strconv.Atoi(part)
				if err != nil || i >= len(c) {
					return nil, false
				}
				v = c[i]
			default:
				return nil, false
			}
		}
		return v, v != nil
	}
	schematest.Check(t, "OCSF", e, place, lookup)
}
