package api

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// RateLimiter is a token bucket per tenant (golang.org/x/time/rate): Rate
// requests per second on average, bursts of Burst. Tenants idle for longer
// than a full refill are forgotten by a sweep at most once a minute, so
// the map holds only recently active tenants and a new tenant costs O(1).
type RateLimiter struct {
	limit     rate.Limit
	burst     int
	idle      time.Duration
	now       func() time.Time
	mu        sync.Mutex
	tenants   map[string]*tenantLimiter
	lastSweep time.Time
}

type tenantLimiter struct {
	lim  *rate.Limiter
	seen time.Time
}

// NewRateLimiter returns a limiter; rate <= 0 returns nil (no limit).
func NewRateLimiter(perSecond float64, burst int, now func() time.Time) *RateLimiter {
	if perSecond <= 0 {
		return nil
	}
	burst = max(burst, 1)
	if now == nil {
		now = time.Now
	}
	// A bucket idle this long is full again: forgetting it changes nothing.
	refill := time.Duration(float64(burst) / perSecond * float64(time.Second))
	return &RateLimiter{limit: rate.Limit(perSecond), burst: burst, idle: max(refill, time.Minute), now: now,
		tenants: map[string]*tenantLimiter{}, lastSweep: now()}
}

// Allow takes a token of the tenant's bucket. When none is left it returns
// false and how long until one is.
func (l *RateLimiter) Allow(tenant string) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if now.Sub(l.lastSweep) >= time.Minute {
		l.sweep(now)
	}
	t, ok := l.tenants[tenant]
	if !ok {
		t = &tenantLimiter{lim: rate.NewLimiter(l.limit, l.burst)}
		l.tenants[tenant] = t
	}
	t.seen = now
	r := t.lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

// sweep forgets the tenants idle for longer than a full refill.
func (l *RateLimiter) sweep(now time.Time) {
	for k, t := range l.tenants {
		if now.Sub(t.seen) > l.idle {
			delete(l.tenants, k)
		}
	}
	l.lastSweep = now
}

// tracked is the number of tenants the limiter holds (tests).
func (l *RateLimiter) tracked() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.tenants)
}
