// Package restorejob is the domain of restores, split from the domain
// root (issue 54): a user's ask to put a resource back to the state an
// event recorded (Ask, CheckRestoreRole, PlanRestore, CheckRestorable),
// the request the audit log sends the service that owns the resource
// (Request, its id derived from the ask so that a repeated ask is one
// request), its record and states (Record, Pending, Applied, Failed),
// the delivery's backoff and lease, the field paths a restore may name
// (CheckPath), the Store a backend implements, and the HMAC signature
// of a request sent by webhook or Kafka (SignBody, VerifyBody). The delivery itself
// (Kafka or a webhook, the worker and its outbox) is the top-level
// package restore.
package restorejob
