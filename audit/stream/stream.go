package stream

import (
	"context"
	"time"
)

// Streams deliver a tenant's events, as they are sealed into its
// verifiable log, to a destination the tenant runs: its SIEM (Splunk's
// HTTP Event Collector), an HTTPS webhook, or S3-compatible storage
// (issue 43). They go beyond the spec, so they are opt-in: off until a
// tenant admin creates one, and only for the plans the deployment allows.
//
// Decisions, written here because the code follows them:
//   - Delivery is at least once, in log order per tenant: a stream's
//     cursor is the next leaf index of the tenant's log to deliver, and it
//     moves only after the destination accepted a batch. Each delivered
//     event carries its tenant and leaf index, so a receiver deduplicates
//     by index and detects a gap; the checkpoint covering it proves it.
//   - A stream reads sealed events only: the log's order is the one
//     order every replica and every store agree on, and an event not yet
//     sealed has no index to deduplicate by.
//   - A destination that refuses the credentials (401, 403) pauses the
//     stream with the reason; anything else (429, 5xx, a timeout) is
//     retried with backoff, honouring Retry-After, and the stream says it
//     is failing until a batch goes through.

// Stream formats.
const (
	FormatEvent = "event" // the API's Event JSON
	FormatOCSF  = "ocsf"  // OCSF 1.x classes (API Activity, Account Change, Authentication)
)

// Formats lists the formats a stream can deliver (the OCSF mapping
// is package ocsf's, its table in docs/streams.md).
var Formats = []string{FormatEvent, FormatOCSF}

// Stream states.
const (
	Active  = "active"  // delivering
	Paused  = "paused"  // stopped by an admin, or by a destination refusing the credentials (Reason says which)
	Failing = "failing" // delivering, but the destination has refused or failed the latest attempts (Reason)
)

// Personal-data masking of a stream's events, per field.
const (
	MaskHash = "hash" // the value replaced by its keyed SHA-256, so equal values still match
	MaskDrop = "drop" // the field left out
)

// MaskedPrefix begins a value a stream hashed (MaskHash): a receiver, or
// the capture check, tells a masked field by it.
const MaskedPrefix = "hmac-sha256:"

// Stream is one tenant's stream.
type Stream struct {
	ID          string      `json:"id"`
	TenantID    string      `json:"tenantId"`
	Name        string      `json:"name"`
	Destination Destination `json:"destination"`
	Format      string      `json:"format"`
	// Filter is a search-language query (the API's q): only the events it
	// matches are delivered; empty delivers every event.
	Filter string `json:"filter,omitempty"`
	// Mask hashes or drops fields of personal data: field → MaskHash or
	// MaskDrop.
	Mask map[string]string `json:"mask,omitempty"`
	// Notify are the e-mail addresses told when the stream has failed
	// for AlertAfter, and when it recovers (the creator's by
	// default).
	Notify []string `json:"notify,omitempty"`
	State  string   `json:"state"`
	Reason string   `json:"reason,omitempty"`
	// Cursor is the next leaf index of the tenant's log to deliver.
	Cursor uint64 `json:"cursor"`
	// Parked are ranges the destination rejected (a 4xx other than
	// 401/403): the cursor went on past them, so that newer events are
	// not held up, and each is retried apart until accepted.
	Parked []ParkedRange `json:"parked,omitempty"`
	Health Health        `json:"health"`
	// LeaseOwner, the replica delivering the stream, holds it until
	// LeaseUntil (Claim).
	LeaseOwner string    `json:"leaseOwner,omitempty"`
	LeaseUntil time.Time `json:"leaseUntil,omitzero"`
	CreatedAt  time.Time `json:"createdAt"`
	UpdatedAt  time.Time `json:"updatedAt"`
	Rev        string    `json:"-"` // "" before the first write
}

// ParkedRange is a range of a stream's log [From, To) the destination
// rejected, with why, how many times, and when it is tried again.
type ParkedRange struct {
	From     uint64    `json:"from"`
	To       uint64    `json:"to"`
	Reason   string    `json:"reason"`
	Attempts int       `json:"attempts"`
	NextAt   time.Time `json:"nextAt"`
}

// MaxParked bounds a stream's parked ranges: past it the stream pauses,
// since a destination that rejects that much needs its admin.
const MaxParked = 100

// Store keeps the tenants' streams.
type Store interface {
	// Streams lists a tenant's streams, oldest first. Errors: EUNAVAILABLE.
	Streams(ctx context.Context, tenantID string) ([]Stream, error)
	// Stream returns one. Errors: ENOTFOUND (also for another tenant's),
	// EUNAVAILABLE.
	Stream(ctx context.Context, tenantID, id string) (Stream, error)
	// PutStream writes s when it is unchanged since it was read (Rev; ""
	// creates it) and sets its new Rev. Errors: ECONFLICT when it changed
	// meanwhile, EUNAVAILABLE.
	PutStream(ctx context.Context, s *Stream) error
	// SaveProgress is PutStream for the delivery loop's own writes within
	// a turn (its claim, each batch's cursor and health), whose next write
	// follows at once: the store may show it to Streams and StreamsAfter
	// only later (Elasticsearch: no refresh per write, which cost a
	// stream about 40 ms a batch), while Stream, PutStream and
	// SaveProgress see it at once. The loop ends each turn with a
	// PutStream. Errors: those of PutStream.
	SaveProgress(ctx context.Context, s *Stream) error
	// DeleteStream deletes one. Errors: ENOTFOUND, EUNAVAILABLE.
	DeleteStream(ctx context.Context, tenantID, id string) error
	// StreamsAfter lists every tenant's streams, by tenant then id, after
	// the key after (zero: from the first), at most limit: the delivery
	// loop's walk. Errors: EUNAVAILABLE.
	StreamsAfter(ctx context.Context, after Key, limit int) ([]Stream, error)
}

// Key is a stream's place in StreamsAfter's order.
type Key struct{ TenantID, ID string }

// Key is s's Key.
func (s *Stream) Key() Key { return Key{s.TenantID, s.ID} }
