package vlog_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"sync"
	"testing"

	"github.com/auditlog/auditlog/audit/vlog"

	"github.com/auditlog/auditlog/audit"
)

// TestAcceptanceTag: the tag is what docs/verifiable-log.md says, computed
// here with crypto/hmac from that description (not with the code under
// test): 0x01, the key id (the first 4 bytes of SHA-256 of
// "auditlog-accept-key-id", NUL, the key), and HMAC-SHA-256 under the key
// of "auditlog-accept-v1", NUL, the tenant, NUL, the id, NUL and the
// digest, its first 16 bytes. It verifies for that event only; a rotated
// key's tags still verify; a tag of a key not held, or none, does not.
func TestAcceptanceTag(t *testing.T) {
	key := bytes.Repeat([]byte{42}, 32)
	a, err := vlog.NewAcceptor(key)
	if err != nil {
		t.Fatal(err)
	}
	tenant, id := "7c9e6679-7425-40de-944b-e07fc1f90ae7", "evt_audit_01a2008a-7ca0-7758-b95f-ad0e26289679"
	digest := sha256.Sum256([]byte("the canonical encoding"))
	kid := sha256.Sum256(append([]byte("auditlog-accept-key-id\x00"), key...))
	m := hmac.New(sha256.New, key)
	m.Write([]byte("auditlog-accept-v1\x00" + tenant + "\x00" + id + "\x00"))
	m.Write(digest[:])
	want := append(append([]byte{1}, kid[:4]...), m.Sum(nil)[:16]...)
	tag := a.Tag(tenant, id, digest)
	if !bytes.Equal(tag, want) {
		t.Fatalf("tag %x, want %x", tag, want)
	}
	if err := a.Check(tenant, id, digest, tag); err != nil {
		t.Fatal(err)
	}
	other := digest
	other[0] ^= 1
	for name, err := range map[string]error{
		"another digest": a.Check(tenant, id, other, tag),
		"another id":     a.Check(tenant, id+"0", digest, tag),
		"another tenant": a.Check("9e8d7c6b-5a49-4382-9170-6f5e4d3c2b1a", id, digest, tag),
		"no tag":         a.Check(tenant, id, digest, nil),
		"short tag":      a.Check(tenant, id, digest, tag[:10]),
	} {
		if audit.ErrorCode(err) != audit.EUNAUTHORIZED {
			t.Errorf("%s: %v, want unauthorized", name, err)
		}
	}
	rotated, _ := vlog.NewAcceptor(bytes.Repeat([]byte{43}, 32), key)
	if err := rotated.Check(tenant, id, digest, tag); err != nil {
		t.Fatalf("a tag of the earlier key after a rotation: %v", err)
	}
	if bytes.Equal(rotated.Tag(tenant, id, digest), tag) {
		t.Fatal("the rotated acceptor tags with the earlier key")
	}
	stranger, _ := vlog.NewAcceptor(bytes.Repeat([]byte{44}, 32))
	if err := stranger.Check(tenant, id, digest, tag); audit.ErrorCode(err) != audit.EUNAUTHORIZED {
		t.Fatalf("a key not held: %v", err)
	}
	if _, err := vlog.NewAcceptor(key[:31]); audit.ErrorCode(err) != audit.EINVALID {
		t.Fatalf("a short key: %v", err)
	}
}

// TestAcceptanceTagsConcurrently: the acceptor's reused MACs give every
// goroutine its own (the writers tag batches in parallel): each of 8
// goroutines tagging different events gets each event's own tag.
func TestAcceptanceTagsConcurrently(t *testing.T) {
	key := bytes.Repeat([]byte{42}, 32)
	a, err := vlog.NewAcceptor(key)
	if err != nil {
		t.Fatal(err)
	}
	want := func(id string) []byte {
		digest := sha256.Sum256([]byte(id))
		return a.Tag("7c9e6679-7425-40de-944b-e07fc1f90ae7", id, digest)
	}
	ids := make([]string, 64)
	tags := make([][]byte, len(ids))
	for i := range ids {
		ids[i] = fmt.Sprintf("evt_%d", i)
		tags[i] = want(ids[i])
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range 500 {
				i := (g*7 + n) % len(ids)
				digest := sha256.Sum256([]byte(ids[i]))
				if err := a.Check("7c9e6679-7425-40de-944b-e07fc1f90ae7", ids[i], digest, tags[i]); err != nil {
					t.Error(err)
					return
				}
				if got := a.Tag("7c9e6679-7425-40de-944b-e07fc1f90ae7", ids[i], digest); !bytes.Equal(got, tags[i]) {
					t.Errorf("%s: tag %x, want %x", ids[i], got, tags[i])
					return
				}
			}
		}()
	}
	wg.Wait()
}
