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

// unmapped is the rest of e, which no OCSF attribute of its class holds,
// under the event's own names.
func unmapped(e audit.Event, c Class) map[string]any {
	u := map[string]any{"category": e.Category, "crossTenant": e.CrossTenant}
	if e.Actor.Role != "" {
		u["actor.role"] = e.Actor.Role
	}
	if c.Class != ClassAPIActivity {
		u["resource"] = e.Resource
	}
	if e.Reason != "" {
		u["reason"] = e.Reason
	}
	if len(e.Diff) > 0 {
		u["diff"] = e.Diff
	}
	for k, v := range map[string]json.RawMessage{"before": e.Before, "after": e.After} {
		if len(v) > 0 {
			u[k] = v
		}
	}
	if e.RestoredFrom != "" {
		u["restoredFrom"] = e.RestoredFrom
	}
	return u
}
