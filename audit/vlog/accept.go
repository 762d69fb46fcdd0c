package vlog

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"sync"

	"github.com/auditlog/auditlog/audit"

	"golang.org/x/mod/sumdb/tlog"
)

// Acceptance (issue 53): the store is untrusted, so only what a process
// of the service accepted may enter the verifiable log. The process that
// accepts an event (serve for HTTP ingest and its own records, index for
// Kafka, the tenant command for a plan change) binds it, before the store
// sees it, with a tag: an HMAC-SHA-256 under the acceptance key, a file
// no store holds, of the tenant, the event id and the digest of the
// event's canonical encoding (EventDigest), kept with the stored row.
// The sealer seals a row only when its tag verifies against the row as
// stored; any other row (inserted behind the service, or rewritten after
// acceptance by a trigger or an update) is unaccepted: never sealed, and
// named. A symmetric key, not a signature: a tag is checked by the
// service's own processes only (tenants check the leaves), and an HMAC
// costs about a microsecond where an Ed25519 signature costs tens, at
// every event of the write path (BENCHMARKS.md, acceptance).

// AcceptKeySize is the size of an acceptance key: 32 random bytes.
const AcceptKeySize = 32

// acceptTagVersion is a tag's first byte; the layout after it is the
// key id (4 bytes) and the MAC truncated to 16 bytes (128 bits, as
// HMAC-SHA-256-128 of RFC 4868).
const (
	acceptTagVersion = 1
	acceptMACSize    = 16
	AcceptTagSize    = 1 + 4 + acceptMACSize
)

// acceptDomain separates acceptance MACs from any other use of a key.
const acceptDomain = "auditlog-accept-v1\x00"

// Acceptor tags events at acceptance with the current acceptance key and
// checks tags made with it or with an earlier one (after a rotation, the
// rows accepted before it may still wait to be sealed).
type Acceptor struct {
	current acceptKey
	keys    map[[4]byte]acceptKey
}

type acceptKey struct {
	id  [4]byte
	key []byte
	// macs holds *macState of this key, reused: a MAC is computed for
	// every event accepted and every row sealed, and a new HMAC, with the
	// conversions of its inputs, was a dozen allocations an event.
	macs *sync.Pool
}

// macState is one reusable HMAC of a key, and its message and sum.
type macState struct {
	h        hash.Hash
	msg, sum []byte
}

func newAcceptKey(k []byte) acceptKey {
	key := append([]byte(nil), k...)
	return acceptKey{id: AcceptKeyID(key), key: key, macs: &sync.Pool{New: func() any {
		return &macState{h: hmac.New(sha256.New, key)}
	}}}
}

// mac appends the truncated MAC of an event of tenant with id and digest
// under k to dst: HMAC-SHA-256 of the domain, the tenant, a zero byte,
// the id, a zero byte and the digest.
func (k acceptKey) mac(dst []byte, tenant, id string, digest [32]byte) []byte {
	s := k.macs.Get().(*macState)
	s.h.Reset()
	s.msg = append(append(s.msg[:0], acceptDomain...), tenant...)
	s.msg = append(append(append(s.msg, 0), id...), 0)
	s.msg = append(s.msg, digest[:]...)
	s.h.Write(s.msg)
	s.sum = s.h.Sum(s.sum[:0])
	dst = append(dst, s.sum[:acceptMACSize]...)
	k.macs.Put(s)
	return dst
}

// NewAcceptor returns the acceptor of the current key and the earlier
// ones. Errors: EINVALID for a key shorter than AcceptKeySize.
func NewAcceptor(current []byte, earlier ...[]byte) (*Acceptor, error) {
	a := &Acceptor{keys: map[[4]byte]acceptKey{}}
	for i, k := range append([][]byte{current}, earlier...) {
		if len(k) < AcceptKeySize {
			return nil, audit.Errorf(audit.EINVALID, "an acceptance key has %d bytes: want at least %d random bytes", len(k), AcceptKeySize)
		}
		ak := newAcceptKey(k)
		if i == 0 {
			a.current = ak
		}
		a.keys[ak.id] = ak
	}
	return a, nil
}

// AcceptKeyID is a key's id, the first 4 bytes of SHA-256 of a domain
// name and the key: which key made a tag, without telling the key.
func AcceptKeyID(key []byte) [4]byte {
	h := sha256.Sum256(append([]byte("auditlog-accept-key-id\x00"), key...))
	return [4]byte(h[:4])
}

// DeriveKey is a key for another use, derived from the current key (an
// HMAC of label under it): the masking key of a deployment that sets
// none, which every process holding the acceptance key derives alike.
func (a *Acceptor) DeriveKey(label string) []byte {
	m := hmac.New(sha256.New, a.current.key)
	m.Write([]byte(label))
	return m.Sum(nil)
}

// KeyID is the current key's id in hex, for the start-up log.
func (a *Acceptor) KeyID() string { return hex.EncodeToString(a.current.id[:]) }

// Tag is the acceptance tag of an event of tenant with id and digest.
func (a *Acceptor) Tag(tenant, id string, digest [32]byte) []byte {
	out := make([]byte, 0, AcceptTagSize)
	out = append(out, acceptTagVersion)
	out = append(out, a.current.id[:]...)
	return a.current.mac(out, tenant, id, digest)
}

// TagEvent is Tag of e as it is now.
func (a *Acceptor) TagEvent(e *audit.Event) []byte { return a.Tag(e.TenantID, e.ID, EventDigest(e)) }

// Check verifies an event's acceptance tag. Errors: EUNAUTHORIZED, whose
// message says why (no tag, a key this service does not hold, or a tag
// that is not the event's as stored).
func (a *Acceptor) Check(tenant, id string, digest [32]byte, tag []byte) error {
	switch {
	case len(tag) == 0:
		return audit.Errorf(audit.EUNAUTHORIZED, "no acceptance tag: the row was not written by a process of the service")
	case len(tag) != AcceptTagSize || tag[0] != acceptTagVersion:
		return audit.Errorf(audit.EUNAUTHORIZED, "the acceptance tag is not one the service writes")
	}
	k, ok := a.keys[[4]byte(tag[1:5])]
	if !ok {
		return audit.Errorf(audit.EUNAUTHORIZED, "the acceptance tag is under key %x, which this service does not hold", tag[1:5])
	}
	var mac [acceptMACSize]byte
	if !hmac.Equal(tag[5:], k.mac(mac[:0], tenant, id, digest)) {
		return audit.Errorf(audit.EUNAUTHORIZED, "the acceptance tag does not match the event as stored: inserted or rewritten behind the service")
	}
	return nil
}

// Authentic checks that a stored event is as the service accepted it,
// before the retention pass acts on it (deletes it, or reads a plan from
// it): its tag verifies against it; or, for a row stored before tags
// (none), the leaf hash stored for it (nil: in no leaf) is its own, so
// that an edit made behind the service, which the leaf's signed tree
// shows, is not acted on either. Errors: EUNAUTHORIZED naming why not.
func (a *Acceptor) Authentic(e *audit.Event, tag []byte, leaf *tlog.Hash) error {
	hashes, digest := LeafHashesAndDigest(*e)
	switch {
	case len(tag) > 0 && a != nil:
		return a.Check(e.TenantID, e.ID, digest, tag)
	case len(tag) > 0:
		return audit.Errorf(audit.EUNAUTHORIZED, "no acceptance key is configured to check the row's tag")
	case leaf == nil:
		return audit.Errorf(audit.EUNAUTHORIZED, "no acceptance tag and no leaf: the service never accepted it")
	case *leaf != hashes[0] && *leaf != hashes[1]:
		return audit.Errorf(audit.EUNAUTHORIZED, "no acceptance tag, and the stored event differs from its leaf")
	}
	return nil
}
