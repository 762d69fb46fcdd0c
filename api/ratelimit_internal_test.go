package api

import (
	"fmt"
	"testing"
	"time"
)

// TestRateLimiter: bursts of Burst, then Rate per second with the wait
// until the next token; tenants do not share buckets; idle tenants are
// forgotten, active ones kept.
func TestRateLimiter(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	l := NewRateLimiter(2, 3, func() time.Time { return now })
	for i := 0; i < 3; i++ {
		if ok, _ := l.Allow("a"); !ok {
			t.Fatalf("request %d of a burst of 3 refused", i+1)
		}
	}
	ok, wait := l.Allow("a")
	if ok || wait <= 0 || wait > 500*time.Millisecond {
		t.Fatalf("4th request: allowed %v, wait %v; want refused with a wait of at most 500ms (2/s)", ok, wait)
	}
	if ok, _ := l.Allow("b"); !ok {
		t.Fatal("another tenant shares a's bucket")
	}
	now = now.Add(wait)
	if ok, _ := l.Allow("a"); !ok {
		t.Fatal("refused after waiting the wait it was told")
	}
	if ok, _ := l.Allow("a"); ok {
		t.Fatal("a second token appeared from nothing")
	}
	// A thousand tenants come once; a keeps coming.
	for i := 0; i < 1000; i++ {
		l.Allow(fmt.Sprintf("t%d", i))
	}
	for i := 0; i < 3; i++ {
		now = now.Add(50 * time.Second)
		l.Allow("a")
	}
	if n := l.tracked(); n != 1 {
		t.Fatalf("%d tenants tracked after the others went idle, want 1 (a)", n)
	}
	if NewRateLimiter(0, 10, nil) != nil {
		t.Fatal("a rate of 0 must mean no limiter")
	}
}
