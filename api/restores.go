package api

import (
	"fmt"
	"strings"

	"github.com/auditlog/auditlog/audit/restorejob"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/auditlog/auditlog/audit"
)

// RestoreDeps enables POST /api/audit-logs/{id}/restore and GET
// /api/restores/{id} when Store is set (with Read).
type RestoreDeps struct {
	Store restorejob.Store
	// Tenants gives the plan whose retention bounds a restore, and
	// DefaultPlan the plan of a tenant not in the directory (the store's
	// retention treats it so). A nil Tenants leaves the bound to the
	// store's own deletion of expired events.
	Tenants     audit.TenantDirectory
	DefaultPlan audit.Plan
	// Notify, when set, wakes the delivery worker after a request is
	// stored.
	Notify func()
}

// IdempotencyKeyHeader names a restore ask: the same key (per tenant)
// always answers the first request it made.
const IdempotencyKeyHeader = "Idempotency-Key"

// maxRestoreBody bounds the body of a restore ask.
const maxRestoreBody = 64 << 10

// RestoreBody is the body of POST /api/audit-logs/{id}/restore.
type RestoreBody struct {
	// Version is the event's state to put back: before (default) or after.
	Version string `json:"version"`
	// Fields restricts the restore to these paths (a per-field undo).
	Fields []string `json:"fields"`
	// Reason is the declared reason; required of an operator-team member.
	Reason string `json:"reason"`
	// LatestSeen is the id of the newest version the user saw; a newer one
	// gives 409 unless Force.
	LatestSeen string `json:"latestSeen"`
	Force      bool   `json:"force"`
}

// RestoreView is a restore request as the API shows it: the request sent
// to the owning service, its delivery and its outcome.
type RestoreView struct {
	restorejob.Request
	Status         restorejob.Status `json:"status"`
	StatusReason   string            `json:"statusReason,omitempty"`
	OutcomeEventID string            `json:"outcomeEventId,omitempty"`
	DeliveredAt    *audit.Timestamp  `json:"deliveredAt"`
	Attempts       int               `json:"attempts"`
	// LastError is why the last delivery attempt failed, and
	// NextAttemptAt when the next one is due; both only while the
	// request is undelivered.
	LastError     string           `json:"lastError,omitempty"`
	NextAttemptAt *audit.Timestamp `json:"nextAttemptAt,omitempty"`
	StatusURL     string           `json:"statusUrl"`
}

func restoreView(r restorejob.Record) RestoreView {
	v := RestoreView{Request: r.Request, Status: r.Status, StatusReason: r.StatusReason, OutcomeEventID: r.OutcomeEventID,
		Attempts: r.Attempts, StatusURL: "/api/restores/" + r.RequestID}
	if v.DeliveredAt = millis(r.DeliveredAt); v.DeliveredAt == nil {
		v.LastError, v.NextAttemptAt = r.LastError, millis(&r.NextAttemptAt)
	}
	return v
}

// parseRestoreBody reads the ask strictly: an unknown field or a wrong
// type is a 400 naming it.
func parseRestoreBody(c *gin.Context) (RestoreBody, error) {
	var b RestoreBody
	empty, err := decodeStrict(c, maxRestoreBody, "restore", &b)
	if err != nil || empty {
		return b, err // an empty ask takes every default
	}
	return b, checkRestoreBody(b)
}

// checkRestoreBody bounds what an ask may carry into the records and the
// request: text of bounded size without control characters.
func checkRestoreBody(b RestoreBody) error {
	var fe []audit.FieldError
	add := func(field, msg string) { fe = append(fe, audit.FieldError{Field: field, Message: msg}) }
	if len(b.Reason) > audit.MaxReasonBytes || !audit.CleanText(b.Reason) {
		add("reason", fmt.Sprintf("must be text of at most %d bytes without control characters", audit.MaxReasonBytes))
	}
	if b.LatestSeen != "" && !audit.ValidID(audit.NormalizeID(b.LatestSeen)) {
		add("latestSeen", "must be the id of an event of the resource (evt_audit_ followed by a UUID), as its history lists them")
	}
	if len(b.Fields) > audit.MaxDiffFields {
		add("fields", fmt.Sprintf("must name at most %d paths", audit.MaxDiffFields))
	}
	for _, f := range b.Fields {
		if f == "" || len(f) > 1024 || !audit.CleanText(f) {
			add("fields", "each path must be 1 to 1024 bytes of text without control characters")
			break
		}
		if err := restorejob.CheckPath(f); err != nil {
			add("fields", audit.ErrorMessage(err))
			break
		}
	}
	if len(fe) > 0 {
		return &audit.Error{Code: audit.EINVALID, Message: "invalid restore", Fields: fe}
	}
	return nil
}

// idempotencyKey is the ask's Idempotency-Key, else the X-Request-Id the
// client sent, else a fresh key (each ask is then a new request).
func idempotencyKey(c *gin.Context) (string, error) {
	key := c.GetHeader(IdempotencyKeyHeader)
	if key == "" {
		if rid := c.GetHeader("X-Request-Id"); rid != "" && rid == requestID(c) {
			return "request-id:" + rid, nil
		}
		return uuid.NewString(), nil
	}
	if len(key) > 255 || audit.SanitizeText(key, 255) != key || strings.TrimSpace(key) != key {
		return "", &audit.Error{Code: audit.EINVALID, Message: "invalid restore",
			Fields: []audit.FieldError{{Field: IdempotencyKeyHeader, Message: "must be 1 to 255 characters of text, without control characters or surrounding spaces"}}}
	}
	return key, nil
}

// declaredReason is the ask's reason, or the operator team's declared
// access reason.
func declaredReason(p audit.Principal, b RestoreBody) string {
	if r := strings.TrimSpace(b.Reason); r != "" {
		return r
	}
	return p.Reason
}
