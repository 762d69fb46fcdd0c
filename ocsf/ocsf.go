// Package ocsf writes audit events in the Open Cybersecurity Schema
// Framework (OCSF 1.5.0), the format a stream delivers when its format is
// "ocsf" (issue 43; the mapping table is in docs/streams.md).
//
// Decisions, written here because the code follows them:
//   - Three classes: Authentication (3002) for sessions (logins, failed
//     logins, logouts, forced logouts); Account Change (3001) for the
//     accounts of users and agents (created, deleted, role changed, MFA
//     configured, password changed); API Activity (6003) for everything
//     else, the configuration changes and the reads of sensitive data
//     (create, read, update, delete).
//   - What OCSF has a place for goes there (actor, source IP, user agent,
//     request id, resource, outcome); the rest of the event goes, under
//     its own names, in `unmapped`, so nothing of the event is lost.
//   - metadata.uid is the event's id, metadata.tenant_uid its tenant, and
//     metadata.sequence its leaf index in the tenant's verifiable log (the
//     same index the delivery carries).
//   - A value that is not what its OCSF field holds (a hashed IP or
//     e-mail, under a stream's masking) goes to a field that holds any
//     string: the IP to src_endpoint.uid, the e-mail to user.name.
package ocsf

import (
	"bytes"
	"encoding/json"
	"net/netip"
	"strings"

	"github.com/auditlog/auditlog/audit"
)

// Version is the OCSF version the events follow.
const Version = "1.5.0"

// Encode returns e as an OCSF event; leaf is its index in the tenant's
// log. It returns no error of its own: only the JSON encoder's.
func Encode(e audit.Event, leaf uint64) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // "Identity & Access Management" as it is written
	ev, err := Map(e, leaf)
	if err != nil {
		return nil, err
	}
	if err := enc.Encode(ev); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Map returns e as an OCSF event, ready to be written as JSON. Errors:
// only the event's own JSON encoding's (raw JSON that is no JSON).
func Map(e audit.Event, leaf uint64) (Event, error) {
	c := Classify(e)
	rest, err := unmapped(e, c)
	if err != nil {
		return Event{}, err
	}
	ms := e.Timestamp.UnixMilli()
	ev := Event{
		ClassUID: c.Class, ClassName: c.ClassName, CategoryUID: c.Class / 1000, CategoryName: c.CategoryName,
		ActivityID: c.Activity, ActivityName: c.ActivityName, TypeUID: int64(c.Class)*100 + int64(c.Activity),
		TypeName: c.ClassName + ": " + c.ActivityName,
		Time:     ms, TimeDT: e.Timestamp.Format(audit.TimestampLayout),
		Severity: "Informational", SeverityID: 1,
		Status: "Success", StatusID: 1,
		Message: message(e),
		Metadata: Metadata{
			Version: Version, Product: Product{Name: "auditlog", VendorName: "auditlog"},
			UID: e.ID, TenantUID: e.TenantID, Sequence: leaf, CorrelationUID: e.RequestID,
			LogName: "audit", OriginalTime: e.Timestamp.Format(audit.TimestampLayout), Profiles: []string{"datetime"},
		},
		Actor:       &Actor{User: user(e.Actor)},
		SrcEndpoint: endpoint(e.Actor.IP),
		Unmapped:    rest,
	}
	if e.Actor.UserAgent != "" {
		ev.HTTPRequest = &HTTPRequest{UserAgent: e.Actor.UserAgent}
	}
	if e.Outcome == audit.OutcomeFailure {
		ev.Status, ev.StatusID, ev.Severity, ev.SeverityID = "Failure", 2, "Low", 2
	}
	switch c.Class {
	case ClassAuthentication:
		ev.User = user(e.Actor)
		ev.Service = &Service{Name: "contact center platform"}
		ev.Session = &Session{UID: e.Resource.ID}
	case ClassAccountChange:
		ev.User = &User{UID: orUnknown(e.Resource.ID), Type: "User", TypeID: 1}
	default:
		ev.API = &API{Operation: string(e.Action) + " " + e.Resource.Type}
		if e.RequestID != "" {
			ev.API.Request = &Request{UID: e.RequestID}
		}
		ev.Resources = []Resource{{UID: orUnknown(e.Resource.ID), Type: e.Resource.Type}}
	}
	return ev, nil
}

// message is the event's occurrence in the catalog, and the reason an
// operator gave, for a reader of the SIEM who reads no field but this.
func message(e audit.Event) string {
	m := string(e.Action) + " " + e.Resource.Type
	for _, c := range audit.Catalog {
		if c.Action == e.Action && c.ResourceType == e.Resource.Type && (c.Outcome == "" || c.Outcome == e.Outcome) {
			m = c.Occurrence
			break
		}
	}
	if e.CrossTenant {
		m += " by the operator team"
	}
	if e.Reason != "" {
		m += "; reason: " + e.Reason
	}
	return m
}

// user is the actor as an OCSF user: admins as Admin, the operator team
// (superadmin) and other roles as Other with the role as the type.
func user(a audit.Actor) *User {
	u := &User{UID: a.ID, Name: a.Email}
	if strings.Contains(a.Email, "@") {
		u.EmailAddr = a.Email
	}
	switch a.Role {
	case audit.RoleAdmin:
		u.Type, u.TypeID = "Admin", 2
	case "":
		u.Type, u.TypeID = "Unknown", 0
	default:
		u.Type, u.TypeID = a.Role, 99
	}
	if u.UID == "" && u.Name == "" {
		u.UID = unknown
	}
	return u
}

// endpoint is where the request came from: an IP as ip, anything else
// (a hash) as uid, and none as "unknown" (OCSF needs one field of it).
func endpoint(ip string) *Endpoint {
	if _, err := netip.ParseAddr(ip); err == nil {
		return &Endpoint{IP: ip}
	}
	if ip != "" {
		return &Endpoint{UID: ip}
	}
	return &Endpoint{Name: "unknown"}
}

// unknown stands for an identifier the event lacks (a stream's masking
// left it out), where OCSF needs one.
const unknown = "unknown"

func orUnknown(s string) string {
	if s == "" {
		return unknown
	}
	return s
}
