package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/netip"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Limits on one event. They are part of the contract (docs/event.md, "Event
// limits"); an event beyond any of them is rejected, never truncated.
const (
	// MaxEventBytes is the largest encoded event accepted. It leaves room
	// for the complete before/after state of a large IVR flow while staying
	// well under Kafka's default 1 MB message size.
	MaxEventBytes = 256 << 10
	// MaxDiffFields is the largest number of changed fields in one diff.
	MaxDiffFields = 256
	// MaxFieldNameBytes bounds one changed field name.
	MaxFieldNameBytes = 128
	// MaxTokenLen bounds actor.role and resource.type.
	MaxTokenLen = 64
	// MaxUserAgentBytes bounds actor.userAgent.
	MaxUserAgentBytes = 1024
	// MaxReasonBytes bounds reason.
	MaxReasonBytes = 1024
	// MaxRequestIDBytes bounds requestId.
	MaxRequestIDBytes = 128
	// MaxEmailBytes bounds actor.email (RFC 5321 path limit).
	MaxEmailBytes = 254
)

// maxClockSkew is how far in the future an event's timestamp may be. A
// far-future timestamp would pin a backing index past its retention.
const maxClockSkew = 24 * time.Hour

// MinTimestamp is the earliest accepted event time.
var MinTimestamp = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// IDPrefix starts every event id.
const IDPrefix = "evt_audit_"

// DecodeEvent parses one event from its JSON encoding, fills in the
// defaults (see Normalize) and validates it at time now. It returns every
// problem at once as an EINVALID *Error whose Fields name each offending
// field, or an ETOOLARGE *Error when data exceeds MaxEventBytes. Unknown,
// duplicate and case-folded keys and invalid UTF-8 are refused
// (strictJSON): an audit record never loses or guesses data.
func DecodeEvent(data []byte, now time.Time) (Event, error) {
	var e Event
	err := decodeEvent(&e, data, newScanner(data), now)
	return e, err
}

// DecodeEventOwned is DecodeEvent into *dst (overwritten) of data its
// caller hands over: data is never written again (a Kafka message's
// value, read into a buffer of its own). A small event's strings are then
// parts of data, not of a copy, and the event is decoded where the caller
// keeps it: the indexer copied and allocated each event once more for
// them (issue 58). Never for a buffer that is reused: the event would
// change with it.
func DecodeEventOwned(dst *Event, data []byte, now time.Time) error {
	return decodeEvent(dst, data, ownedScanner(data), now)
}

// decodeEvent is DecodeEvent into *e, with s the scanner over data.
func decodeEvent(e *Event, data []byte, s scanner, now time.Time) error {
	*e = Event{}
	if len(data) > MaxEventBytes {
		return &Error{Code: ETOOLARGE,
			Message: fmt.Sprintf("event is %d bytes; the limit is %d", len(data), MaxEventBytes),
			Fields:  []FieldError{{Field: "", Message: fmt.Sprintf("event exceeds %d bytes", MaxEventBytes)}}}
	}
	strictErr := decodeStrictWith(s, data, e)
	if strictErr == nil {
		e.Normalize()
		return e.reserved(e.validate(now, nil)).Err("invalid event")
	}
	// Refused: decode again field by field, only to name every problem
	// (the strict decoder stops at the first), and the strict decoder's
	// own when the field-by-field pass, which is lenient about duplicates
	// and UTF-8, did not name that field.
	var fe FieldErrors
	*e, fe = decodeFields(data)
	if p := strictProblem(strictErr); !fe.Names(p.Field) {
		fe = append(fe, p)
	}
	if fe.Names("") {
		*e = Event{}
		return fe.Err("invalid event")
	}
	e.Normalize()
	return e.reserved(e.validate(now, fe)).Err("invalid event")
}

// serviceRecordTypes are the resource types of the records the service
// writes with a person as their actor: a restore asked, a stream changed,
// a legal hold's step (hold.ResourceType, which this package cannot name:
// the hold package's tests hold the two to each other). Restores and
// holds are read back from them.
var serviceRecordTypes = []string{ResourceRestoreRequest, ResourceAuditStream, "legal_hold"}

// reserved adds to fe what an event sent to the service may not carry:
// the service's own actor (SystemActor's id, or its role) and the
// resource types of its own records (SystemResourceTypes and
// serviceRecordTypes). The plan in
// force, retention's authority and the periodic export's deliveries are
// read from those records in the tenant's log; a producer that could send
// one (an ingest token, a write to the Kafka topic) could steer them. The
// service writes its records itself, never through DecodeEvent.
func (e *Event) reserved(fe FieldErrors) FieldErrors {
	if e.Actor.ID == SystemActor.ID && !fe.Names("actor.id") {
		fe.Add("actor.id", "is the service's own actor: a producer cannot send its records")
	}
	if e.Actor.Role == SystemActor.Role && !fe.Names("actor.role") {
		fe.Add("actor.role", "%q is the service's own role: a producer cannot send its records", SystemActor.Role)
	}
	if (slices.Contains(SystemResourceTypes, e.Resource.Type) || slices.Contains(serviceRecordTypes, e.Resource.Type)) && !fe.Names("resource.type") {
		fe.Add("resource.type", "%q is a record the service writes of its own work: a producer cannot send it", e.Resource.Type)
	}
	return fe
}

// Normalize fills in the documented defaults: outcome success, the
// category of the catalog entry for (action, resource.type), and the
// cross-tenant flag for every superadmin action (spec §1: actions of the
// operator team are always flagged, so the tenant can see them). UUIDs are
// lowercased, their canonical form, so that filters match whatever case a
// producer used.
func (e *Event) Normalize() {
	e.ID = NormalizeID(e.ID)
	e.TenantID = NormalizeTenantID(e.TenantID)
	e.Actor.ID = toLower(e.Actor.ID)
	e.Resource.ID = toLower(e.Resource.ID)
	e.RestoredFrom = toLower(e.RestoredFrom)
	if e.Outcome == "" {
		e.Outcome = OutcomeSuccess
	}
	if e.Actor.Role == RoleSuperadmin {
		e.CrossTenant = true
	}
	if e.Category == "" {
		if e.CrossTenant {
			e.Category = CategoryCrossTenant
		} else if c, ok := CategoryOf(e.Action, e.Resource.Type); ok {
			e.Category = c
		}
	}
}

// Validate checks every rule at time now and returns an EINVALID *Error
// listing each offending field, or nil.
func (e *Event) Validate(now time.Time) error {
	return e.validate(now, nil).Err("invalid event")
}

// validate appends rule violations to prior, skipping fields prior already
// names (a field that failed to decode is not also "required").
func (e *Event) validate(now time.Time, prior FieldErrors) FieldErrors {
	fe := prior
	seen := make(map[string]bool, len(prior))
	for _, f := range prior {
		seen[f.Field] = true
	}
	add := func(field, format string, args ...any) {
		if !seen[field] {
			fe.Add(field, format, args...)
		}
	}

	e.checkIdentity(add, now)
	e.checkActor(add)
	e.checkWhat(add)
	e.checkDiff(add)
	e.checkContext(add)
	return fe
}

// addFunc records a problem of one field.
type addFunc = func(field, format string, args ...any)

// checkIdentity checks the id, the timestamp at time now and the tenant.
func (e *Event) checkIdentity(add addFunc, now time.Time) {
	if e.ID != "" && !ValidID(e.ID) {
		add("id", "must be %q followed by a UUID (RFC 9562, versions 1 to 8), like evt_audit_0190f5e2-7b1c-7d3e-9f4a-5b6c7d8e9f0a", IDPrefix)
	}
	switch {
	case e.Timestamp.IsZero():
		add("timestamp", "is required")
	case e.Timestamp.Before(MinTimestamp):
		add("timestamp", "must not be before %s", MinTimestamp.Format(TimestampLayout))
	case e.Timestamp.After(now.Add(maxClockSkew)):
		add("timestamp", "must not be more than %s in the future", maxClockSkew)
	}
	checkUUID(add, "tenantId", e.TenantID)
}

// checkActor checks who acted.
func (e *Event) checkActor(add addFunc) {
	checkUUID(add, "actor.id", e.Actor.ID)
	switch {
	case e.Actor.Email == "":
		add("actor.email", "is required")
	case !ValidEmail(e.Actor.Email):
		add("actor.email", "must be an e-mail address of at most %d bytes", MaxEmailBytes)
	}
	checkToken(add, "actor.role", e.Actor.Role)
	if e.Actor.IP != "" {
		if _, err := netip.ParseAddr(e.Actor.IP); err != nil {
			add("actor.ip", "must be an IPv4 or IPv6 address")
		}
	}
	switch {
	case len(e.Actor.UserAgent) > MaxUserAgentBytes:
		add("actor.userAgent", "must be at most %d bytes", MaxUserAgentBytes)
	case !CleanText(e.Actor.UserAgent):
		add("actor.userAgent", "must be UTF-8 text without control characters")
	}
}

// checkWhat checks the action and its resource.
func (e *Event) checkWhat(add addFunc) {
	switch {
	case e.Action == "":
		add("action", "is required")
	case !e.Action.Valid():
		add("action", "must be one of create, update, delete, access")
	}
	checkToken(add, "resource.type", e.Resource.Type)
	checkUUID(add, "resource.id", e.Resource.ID)
}

// checkDiff checks the changed fields.
func (e *Event) checkDiff(add addFunc) {
	if len(e.Diff) > MaxDiffFields {
		add("diff", "must have at most %d changed fields", MaxDiffFields)
	}
	for _, name := range sortedKeys(e.Diff) {
		c := e.Diff[name]
		switch {
		case name == "" || len(name) > MaxFieldNameBytes || !CleanText(name):
			add("diff", "changed field names must be 1 to %d bytes of UTF-8 without control characters", MaxFieldNameBytes)
		case c.From == nil || c.To == nil:
			add("diff."+name, "must be an object with both \"from\" and \"to\" (null for absent)")
		case !cleanJSON(c.From) || !cleanJSON(c.To):
			add("diff."+name, "must not hold control characters other than tab, line feed and carriage return")
		}
	}
}

// checkContext checks the category, outcome, reason, before and after,
// and the request id.
func (e *Event) checkContext(add addFunc) {
	if e.Category != "" && !e.Category.Valid() {
		add("category", "must be one of configuration, sensitive_access, security, cross_tenant, integration")
	}
	if !e.Outcome.Valid() {
		add("outcome", "must be success or failure")
	}
	switch {
	case e.CrossTenant && strings.TrimSpace(e.Reason) == "":
		add("reason", "is required when crossTenant is true (spec §4.3)")
	case len(e.Reason) > MaxReasonBytes:
		add("reason", "must be at most %d bytes", MaxReasonBytes)
	case !CleanText(e.Reason):
		add("reason", "must be UTF-8 text without control characters")
	}
	switch {
	case e.RestoredFrom == "":
	case !ValidUUID(e.RestoredFrom):
		add("restoredFrom", "must be the UUID of a restore request")
	case e.Action != ActionUpdate:
		add("restoredFrom", "is only for the update that applies a restore request")
	}
	checkObject(add, "before", e.Before)
	checkObject(add, "after", e.After)
	switch {
	case len(e.RequestID) > MaxRequestIDBytes:
		add("requestId", "must be at most %d bytes", MaxRequestIDBytes)
	case !CleanText(e.RequestID):
		add("requestId", "must be UTF-8 text without control characters")
	}
}

func checkUUID(add func(string, string, ...any), field, v string) {
	switch {
	case v == "":
		add(field, "is required")
	case !ValidUUID(v):
		add(field, "must be a UUID like 0b6f5d3e-8c1a-4f7e-9a52-3c1d2e4f5a6b")
	}
}

func checkToken(add func(string, string, ...any), field, v string) {
	switch {
	case v == "":
		add(field, "is required")
	case !ValidToken(v):
		add(field, "must be lowercase snake_case (a-z, 0-9, _), starting with a letter, at most %d characters", MaxTokenLen)
	}
}

func checkObject(add func(string, string, ...any), field string, raw json.RawMessage) {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return
	}
	switch {
	case raw[0] != '{':
		add(field, "must be a JSON object holding the complete state")
	case !cleanJSON(raw):
		add(field, "must not hold control characters other than tab, line feed and carriage return")
	}
}

// ValidToken reports whether s is lowercase snake_case of at most
// MaxTokenLen characters starting with a letter: the open sets actor.role
// and resource.type.
func ValidToken(s string) bool {
	if len(s) == 0 || len(s) > MaxTokenLen || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// ValidUUID reports whether s is a UUID in the canonical 36-character
// hyphenated form, in either case.
func ValidUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	_, err := uuid.Parse(s)
	return err == nil
}

func validEmail(s string) bool {
	if len(s) > MaxEmailBytes || strings.ContainsAny(s, " \t\r\n<>,;\"") {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	return at > 0 && at < len(s)-1 && strings.IndexByte(s[at+1:], '.') > 0 && !strings.HasSuffix(s, ".")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
