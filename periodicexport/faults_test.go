package periodicexport_test

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/blob"

	"github.com/auditlog/auditlog/audit/periodic"
)

// dying is a bucket whose process dies after a number of writes: every
// write from then on fails, as nothing more reaches the bucket.
type dying struct {
	blob.Store
	left atomic.Int32
}

func (d *dying) Put(ctx context.Context, key string, r io.Reader, size int64) error {
	if d.left.Add(-1) < 0 {
		return errors.New("the process died")
	}
	return d.Store.Put(ctx, key, r, size)
}

// TestCrashInTheMiddleOfAWindow: the exporter dies after the data file of
// the second window and before its digest; another replica takes over
// once the lease lapses. No window is skipped or duplicated and the chain
// verifies.
func TestCrashInTheMiddleOfAWindow(t *testing.T) {
	stores(t, func(t *testing.T, s store) {
		ctx := context.Background()
		b := s3Bucket(t, "")
		tenant, _ := seed(t, s, 2000, oct1, oct4, periodic.Daily)
		c := &clock{t: oct4.Add(30 * time.Minute)}
		key := newKey(t)
		// Writes: the public key, window 1's data and digest, window 2's
		// data; then it dies.
		d := &dying{Store: b}
		d.left.Store(4)
		if err := scheduler(t, s, d, "replica-1", key, c).RunOnce(ctx); err == nil {
			t.Fatal("the pass that died reported no error")
		}
		st, err := s.PeriodicState(ctx, tenant)
		if err != nil || !st.NextStart.Equal(oct1.Add(24*time.Hour)) || st.LastError == "" {
			t.Fatalf("after the crash: next %s, last error %q (%v)", st.NextStart, st.LastError, err)
		}
		c.set(c.now().Add(2 * time.Minute)) // the lease lapses
		must(t, scheduler(t, s, b, "replica-2", key, c).RunOnce(ctx))
		if files := union(t, s, b, tenant); files != 3 {
			t.Fatalf("%d data files, want 3", files)
		}
		if ok, out := verifyChain(t, b, tenant, pubKeys(key)); !ok || !strings.Contains(out, "verified 3 digests") {
			t.Fatalf("verify:\n%s", out)
		}
	})
}

// proxy forwards TCP connections to target while up; while down it
// refuses them, as a stopped server does.
type proxy struct {
	addr, target string
	mu           sync.Mutex
	ln           net.Listener
}

func newProxy(t *testing.T, target string) *proxy {
	p := &proxy{target: target}
	p.up(t)
	p.addr = p.ln.Addr().String()
	t.Cleanup(p.down)
	return p
}

func (p *proxy) up(t *testing.T) {
	addr := p.addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	must(t, err)
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				u, err := net.Dial("tcp", p.target)
				if err != nil {
					return
				}
				defer u.Close()
				go io.Copy(u, c)
				_, _ = io.Copy(c, u)
			}()
		}
	}()
}

func (p *proxy) down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
}

// TestBucketDownThenBack: while the S3 server cannot be reached, passes
// fail and the undelivered windows' age shows; once it is back, every
// window is delivered, once.
func TestBucketDownThenBack(t *testing.T) {
	stores(t, func(t *testing.T, s store) {
		ctx := context.Background()
		target := strings.TrimPrefix(testenvS3Endpoint(t), "http://")
		p := newProxy(t, target)
		b := s3Bucket(t, "http://"+p.addr)
		tenant, _ := seed(t, s, 1000, oct1, oct4, periodic.Daily)
		c := &clock{t: oct4.Add(30 * time.Minute)}
		key := newKey(t)
		sc := scheduler(t, s, b, "replica-1", key, c)
		var age time.Duration
		sc.Observe = func(_ string, d time.Duration) { age = d }
		p.down()
		for i := 0; i < 3; i++ {
			if err := sc.RunOnce(ctx); err == nil {
				t.Fatal("a pass with the bucket down reported no error")
			}
			// Backing off: a pass right after a failure does not try.
			must(t, sc.RunOnce(ctx))
			c.set(c.now().Add(10 * time.Minute))
		}
		if st, err := s.PeriodicState(ctx, tenant); err != nil || st.Failures != 3 || st.LastError == "" || !st.RetryAt.After(c.now().Add(-10*time.Minute)) {
			t.Fatalf("after three failed passes: %d failures, retry at %s, last error %q (%v)", st.Failures, st.RetryAt, st.LastError, err)
		}
		if want := 2 * 24 * time.Hour; age < want { // October 1st, due since October 2nd 00:30
			t.Fatalf("oldest undelivered window: %s old, want at least %s", age, want)
		}
		p.up(t)
		must(t, sc.RunOnce(ctx))
		if age != 0 {
			t.Fatalf("after delivery the oldest undelivered window is %s old", age)
		}
		if files := union(t, s, b, tenant); files != 3 {
			t.Fatalf("%d data files, want 3", files)
		}
		if ok, out := verifyChain(t, b, tenant, pubKeys(key)); !ok {
			t.Fatalf("verify:\n%s", out)
		}
	})
}
