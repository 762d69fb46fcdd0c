package ocsf

import (
	"encoding/json"

	"github.com/auditlog/auditlog/audit"
)

// OCSF classes the events map to.
const (
	ClassAccountChange  = 3001
	ClassAuthentication = 3002
	ClassAPIActivity    = 6003
)

// Class is where an event goes in OCSF: its class and activity.
type Class struct {
	Class        int
	ClassName    string
	CategoryName string
	Activity     int
	ActivityName string
}

var (
	authentication = Class{Class: ClassAuthentication, ClassName: "Authentication", CategoryName: "Identity & Access Management"}
	accountChange  = Class{Class: ClassAccountChange, ClassName: "Account Change", CategoryName: "Identity & Access Management"}
	apiActivity    = Class{Class: ClassAPIActivity, ClassName: "API Activity", CategoryName: "Application Activity"}
)

func (c Class) activity(id int, name string) Class {
	c.Activity, c.ActivityName = id, name
	return c
}

// Classify returns the class and activity of e (the table of
// docs/streams.md): sessions are Authentication, the accounts of users and
// agents Account Change, everything else API Activity. An event outside
// the catalog follows its resource type and action the same way.
func Classify(e audit.Event) Class {
	switch e.Resource.Type {
	case audit.ResourceSession:
		switch e.Action {
		case audit.ActionAccess, audit.ActionCreate:
			return authentication.activity(1, "Logon")
		case audit.ActionDelete:
			return authentication.activity(2, "Logoff")
		}
		return authentication.activity(99, "Other")
	case audit.ResourceAgent, audit.ResourceUserRole, audit.ResourceUserMFA, audit.ResourceUserCredentials:
		if c, ok := account(e); ok {
			return c
		}
	}
	switch e.Action {
	case audit.ActionCreate:
		return apiActivity.activity(1, "Create")
	case audit.ActionAccess:
		return apiActivity.activity(2, "Read")
	case audit.ActionUpdate:
		return apiActivity.activity(3, "Update")
	case audit.ActionDelete:
		return apiActivity.activity(4, "Delete")
	}
	return apiActivity.activity(99, "Other")
}

// account is the Account Change activity of a change to an account; a
// read of one is not a change, and is an API Activity.
func account(e audit.Event) (Class, bool) {
	switch {
	case e.Action == audit.ActionAccess:
		return Class{}, false
	case e.Action == audit.ActionCreate:
		return accountChange.activity(1, "Create"), true
	case e.Action == audit.ActionDelete:
		return accountChange.activity(6, "Delete"), true
	case e.Resource.Type == audit.ResourceUserCredentials:
		return accountChange.activity(3, "Password Change"), true
	case e.Resource.Type == audit.ResourceUserMFA:
		return accountChange.activity(10, "MFA Factor Enable"), true
	case e.Resource.Type == audit.ResourceUserRole:
		return accountChange.activity(99, "Role Change"), true
	}
	return accountChange.activity(99, "Other"), true // an agent's update
}

// mapped are the event's fields an OCSF attribute holds in every class
// (its id, time, tenant, request id; the action and outcome as the
// activity and status; who acted and from where); the resource's type and
// id are held too in API Activity (resources).
var mapped = map[string]bool{"id": true, "timestamp": true, "tenantId": true, "requestId": true, "action": true, "outcome": true,
	"actor.id": true, "actor.email": true, "actor.ip": true, "actor.userAgent": true}

// unmapped is the rest of e, which no OCSF attribute of its class holds,
// under the event's own names (a nested field as "actor.role"). It is
// read from the event's own JSON (Event.AppendJSON), not listed here
// field by field, so a field added to the event is carried with nothing
// to change (TestEveryFieldInOCSF).
func unmapped(e audit.Event, c Class) (map[string]any, error) {
	raw, err := e.AppendJSON(make([]byte, 0, 1024))
	if err != nil {
		return nil, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, err
	}
	u := map[string]any{}
	for k, v := range top {
		switch {
		case mapped[k]:
		case k == "actor" || k == "resource" && c.Class == ClassAPIActivity:
			var nested map[string]json.RawMessage
			if err := json.Unmarshal(v, &nested); err != nil {
				return nil, err
			}
			for n, nv := range nested {
				if path := k + "." + n; !mapped[path] && !(k == "resource" && (n == "type" || n == "id")) {
					u[path] = nv
				}
			}
		default:
			u[k] = v
		}
	}
	return u, nil
}
