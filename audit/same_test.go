package audit_test

import (
	"encoding/json"
	"testing"

	"github.com/auditlog/auditlog/audit"
)

func TestSameEventAndSettle(t *testing.T) {
	base := func() audit.Event {
		e := specEvent()
		e.Before = json.RawMessage(`{"retentionDays":30,"rules":[{"id":"a","on":true}]}`)
		e.After = json.RawMessage(`{"retentionDays":90,"rules":[{"id":"a","on":false}]}`)
		e.Diff = map[string]audit.Change{"retentionDays": {From: json.RawMessage(`30`), To: json.RawMessage(`90`)}}
		return e
	}
	same := map[string]func(*audit.Event){
		"identical": func(*audit.Event) {},
		"key order and white space": func(e *audit.Event) {
			e.After = json.RawMessage(`{ "rules": [ {"on":false, "id":"a"} ], "retentionDays": 90 }`)
		},
		"1 and 1.0": func(e *audit.Event) {
			e.Diff["retentionDays"] = audit.Change{From: json.RawMessage(`30.0`), To: json.RawMessage(`9e1`)}
		},
	}
	different := map[string]func(*audit.Event){
		"actor ip":  func(e *audit.Event) { e.Actor.IP = "203.0.113.99" },
		"timestamp": func(e *audit.Event) { e.Timestamp = audit.NewTimestamp(e.Timestamp.Add(1e6)) },
		"reason":    func(e *audit.Event) { e.Reason = "other" },
		"after value": func(e *audit.Event) {
			e.After = json.RawMessage(`{"retentionDays":91,"rules":[{"id":"a","on":false}]}`)
		},
		"array order": func(e *audit.Event) {
			e.Before = json.RawMessage(`{"retentionDays":30,"rules":[{"on":true,"id":"b"}]}`)
		},
		"diff entry added": func(e *audit.Event) {
			e.Diff["x"] = audit.Change{From: json.RawMessage(`null`), To: json.RawMessage(`1`)}
		},
		"large integers":    func(e *audit.Event) { e.After = json.RawMessage(`{"n":9007199254740993}`) },
		"before absent":     func(e *audit.Event) { e.Before = nil },
		"tenant":            func(e *audit.Event) { e.TenantID = "0b6f5d3e-8c1a-4f7e-9a52-3c1d2e4f5a6b" },
		"cross-tenant flag": func(e *audit.Event) { e.CrossTenant = true },
		"resource id":       func(e *audit.Event) { e.Resource.ID = "0b6f5d3e-8c1a-4f7e-9a52-3c1d2e4f5a6b" },
		"outcome":           func(e *audit.Event) { e.Outcome = audit.OutcomeFailure },
		"request id":        func(e *audit.Event) { e.RequestID = "req_2" },
		"diff value type": func(e *audit.Event) {
			e.Diff["retentionDays"] = audit.Change{From: json.RawMessage(`"30"`), To: json.RawMessage(`90`)}
		},
		"user agent":          func(e *audit.Event) { e.Actor.UserAgent = "other" },
		"category":            func(e *audit.Event) { e.Category = audit.CategorySecurity },
		"action":              func(e *audit.Event) { e.Action = audit.ActionDelete },
		"actor e-mail":        func(e *audit.Event) { e.Actor.Email = "x@y.example" },
		"after null vs value": func(e *audit.Event) { e.After = json.RawMessage(`null`) },
	}
	for name, mut := range same {
		a, b := base(), base()
		mut(&b)
		if !audit.SameEvent(&a, &b) || audit.Settle(&a, &b).Status != audit.WriteDuplicate {
			t.Errorf("%s: must be the same event (a duplicate)", name)
		}
	}
	for name, mut := range different {
		a, b := base(), base()
		mut(&b)
		r := audit.Settle(&a, &b)
		if audit.SameEvent(&a, &b) || r.Status != audit.WriteConflict || r.Reason == "" {
			t.Errorf("%s: must be a conflict with its reason, got %+v", name, r)
		}
	}
	a, b := base(), base()
	a.Diff, b.Diff = nil, map[string]audit.Change{}
	if !audit.SameEvent(&a, &b) {
		t.Error("an empty diff equals an absent one")
	}
}
