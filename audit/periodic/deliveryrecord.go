package periodic

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// deliveryDetails is a delivery record's after.
type deliveryDetails struct {
	DigestKey       string          `json:"digestKey"`
	DigestSignature string          `json:"digestSignature"`
	KeyID           string          `json:"keyId"`
	WindowStart     audit.Timestamp `json:"windowStart"`
	WindowEnd       audit.Timestamp `json:"windowEnd"`
	Late            int             `json:"late"`
	Events          int64           `json:"events"`
}

// DeliveryRecord is the system event that records in the tenant's log the
// delivery of digest d (stored under digestKey): once sealed, a witness's
// checkpoint commits to it, so an export whose chain was cut off after
// this digest is caught by anyone who reads the log (auditlog verify
// --api), whatever the exporter's own records say. Its id derives from
// the digest's signature: a delivery retried after a crash records once.
func DeliveryRecord(d *Digest, digestKey string, now time.Time) audit.Event {
	var events int64
	for _, f := range d.Files {
		events += f.Count
	}
	after, _ := json.Marshal(deliveryDetails{DigestKey: digestKey, DigestSignature: d.Signature, KeyID: d.KeyID,
		WindowStart: d.WindowStart, WindowEnd: d.WindowEnd, Late: d.Late, Events: events})
	e := audit.Event{Timestamp: audit.NewTimestamp(now), TenantID: d.TenantID, Actor: audit.SystemActor, Action: audit.ActionCreate,
		Resource: audit.Resource{Type: audit.ResourcePeriodicExport, ID: d.TenantID}, Category: audit.CategoryConfiguration, Outcome: audit.OutcomeSuccess,
		Reason: fmt.Sprintf("periodic export delivered: window %s to %s (late file %d), %d events, digest %s", d.WindowStart, d.WindowEnd, d.Late, events, digestKey),
		After:  after}
	e.ID = audit.DeriveID(e.Timestamp, []byte("delivery:"+d.TenantID+":"+d.Signature))
	return e
}

// DeliveredDigest reads a delivery record back: the digest's key and
// signature (ok false for any other event).
func DeliveredDigest(e audit.Event) (key, signature string, ok bool) {
	if e.Resource.Type != audit.ResourcePeriodicExport || e.Actor.ID != audit.SystemActor.ID || len(e.After) == 0 {
		return "", "", false
	}
	var d deliveryDetails
	if json.Unmarshal(e.After, &d) != nil || d.DigestKey == "" || d.DigestSignature == "" {
		return "", "", false
	}
	return d.DigestKey, d.DigestSignature, true
}
