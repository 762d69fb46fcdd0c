package backoff

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestNextStaysWithinMinAndMax: every delay is within Min..Max, the first
// is Min, and the ceiling grows until delays reach past half of Max.
func TestNextStaysWithinMinAndMax(t *testing.T) {
	for _, tc := range []struct{ min, max time.Duration }{
		{50 * time.Millisecond, time.Second},
		{200 * time.Millisecond, 15 * time.Second},
		{time.Second, time.Second},
	} {
		b := New(tc.min, tc.max)
		if d := b.Next(); d != tc.min {
			t.Errorf("%v..%v: first delay %v, want Min", tc.min, tc.max, d)
		}
		var longest time.Duration
		for i := 0; i < 2000; i++ {
			d := b.Next()
			if d < tc.min || d > tc.max {
				t.Fatalf("%v..%v: delay %v out of range", tc.min, tc.max, d)
			}
			longest = max(longest, d)
		}
		if longest <= tc.max/2 && tc.max > tc.min {
			t.Errorf("%v..%v: the longest of 2,000 delays is %v: the ceiling does not grow to Max", tc.min, tc.max, longest)
		}
		b.Reset()
		if d := b.Next(); d != tc.min {
			t.Errorf("after Reset: %v, want Min", d)
		}
	}
}

// TestNewRepairsItsBounds: a zero Min cannot stall the growth at zero,
// and Max is never below Min.
func TestNewRepairsItsBounds(t *testing.T) {
	b := New(0, 10*time.Millisecond)
	for i := 0; i < 20; i++ {
		b.Next()
	}
	if b.cur != 10*time.Millisecond {
		t.Errorf("ceiling %v after 20 delays, want Max", b.cur)
	}
	if b := New(time.Second, time.Millisecond); b.Max != time.Second {
		t.Errorf("Max %v below Min", b.Max)
	}
}

// TestRetry: f runs until it succeeds; each failure is reported; when
// the context ends first the error wraps both the context's and the last
// failure.
func TestRetry(t *testing.T) {
	calls, reported := 0, 0
	err := Retry(context.Background(), New(time.Millisecond, 2*time.Millisecond), func(error) { reported++ }, func() error {
		calls++
		if calls < 3 {
			return errors.New("down")
		}
		return nil
	})
	if err != nil || calls != 3 || reported != 2 {
		t.Fatalf("err %v, %d calls, %d reported; want success on the third call", err, calls, reported)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	down := errors.New("still down")
	err = Retry(ctx, New(time.Millisecond, 5*time.Millisecond), nil, func() error { return down })
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, down) {
		t.Fatalf("err %v: want the deadline and the last failure", err)
	}
	cancelled, stop := context.WithCancel(context.Background())
	stop()
	if Sleep(cancelled, time.Hour) {
		t.Fatal("Sleep on an ended context reported the delay as passed")
	}
}
