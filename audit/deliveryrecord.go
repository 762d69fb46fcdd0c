package audit

import (
	"encoding/json"
	"fmt"
	"time"
)

// ResourcePeriodicExport is the resource type of the record, in a
// tenant's log, of one delivered digest of its periodic export.
const ResourcePeriodicExport = "periodic_export"

// deliveryDetails is a delivery record's after.
type deliveryDetails struct {
	DigestKey       string    `json:"digestKey"`
	DigestSignature string    `json:"digestSignature"`
	KeyID           string    `json:"keyId"`
	WindowStart     Timestamp `json:"windowStart"`
	WindowEnd       Timestamp `json:"windowEnd"`
	Late            int       `json:"late"`
	Events          int64     `json:"events"`
}

// DeliveryRecord is the system event that records in the tenant's log the
// delivery of digest d (stored under digestKey): once sealed, a witness's
// checkpoint commits to it, so an export whose chain was cut off after
// this digest is caught by anyone who reads the log (auditlog verify
// --api), whatever the exporter's own records say. Its id derives from
// the digest's signature: a delivery retried after a crash records once.
func DeliveryRecord(d *Digest, digestKey string, now time.Time) Event {
	var events int64
	for _, f := range d.Files {
		events += f.Count
	}
	after, _ := json.Marshal(deliveryDetails{DigestKey: digestKey, DigestSignature: d.Signature, KeyID: d.KeyID,
		WindowStart: d.WindowStart, WindowEnd: d.WindowEnd, Late: d.Late, Events: events})
	e := Event{Timestamp: NewTimestamp(now), TenantID: d.TenantID, Actor: SystemActor, Action: ActionCreate,
		Resource: Resource{Type: ResourcePeriodicExport, ID: d.TenantID}, Category: CategoryConfiguration, Outcome: OutcomeSuccess,
		Reason: fmt.Sprintf("periodic export delivered: window %s to %s (late file %d), %d events, digest %s", d.WindowStart, d.WindowEnd, d.Late, events, digestKey),
		After:  after}
	e.ID = DeriveID(e.Timestamp, []byte("delivery:"+d.TenantID+":"+d.Signature))
	return e
}

// DeliveredDigest reads a delivery record back: the digest's key and
// signature (ok false for any other event).
func DeliveredDigest(e Event) (key, signature string, ok bool) {
	if e.Resource.Type != ResourcePeriodicExport || e.Actor.ID != SystemActor.ID || len(e.After) == 0 {
		return "", "", false
	}
	var d deliveryDetails
	if json.Unmarshal(e.After, &d) != nil || d.DigestKey == "" || d.DigestSignature == "" {
		return "", "", false
	}
	return d.DigestKey, d.DigestSignature, true
}
