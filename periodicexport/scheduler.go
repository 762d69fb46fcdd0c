package periodicexport

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/auditlog/auditlog/audit/blob"
	"github.com/auditlog/auditlog/audit/stats"
	"github.com/auditlog/auditlog/audit/vlog"

	"github.com/auditlog/auditlog/audit/periodic"

	"github.com/auditlog/auditlog/audit"
)

// Source is what the scheduler reads: every event of a window in order,
// and the counts per window that show late events.
type Source interface {
	audit.EventScanner
	EventStats(ctx context.Context, q stats.Query) (stats.Stats, error)
	EventSpan(ctx context.Context, f audit.Filter) (audit.Span, error)
}

// Scheduler exports every active tenant's settled windows, then the late
// events of windows already exported, one tenant at a time under a lease
// in the store so that one replica exports a window.
type Scheduler struct {
	Store   periodic.Store
	Tenants audit.TenantDirectory
	Events  Source
	// Bucket returns the bucket and prefix of a tenant (its override, or
	// the deployment's).
	Bucket func(st *periodic.State) (blob.Store, string, error)
	// Key signs the digests; PublicKeys (the current one included) are
	// written into each tenant's prefix, under keys/<id>.pem.
	Key        ed25519.PrivateKey
	PublicKeys map[string][]byte
	// Settle is how long after its end a window is exported; LateHorizon
	// how far back late events are looked for.
	Settle, LateHorizon time.Duration
	// Owner names this replica in leases, held for Lease at a time.
	Owner   string
	Lease   time.Duration
	TempDir string
	Now     func() time.Time
	Log     *slog.Logger
	// WaitHeld makes RunOnce wait for a tenant another replica is
	// exporting (at most its lease) instead of leaving it to that one:
	// export-periodic --once then returns with everything due exported.
	WaitHeld bool
	// Observe, when set, is told after each tenant's pass how old its
	// oldest window due but not delivered is (0 when none).
	Observe func(tenant string, undelivered time.Duration)
	// Logs, when set, is the verifiable log: each digest carries the
	// tenant's latest checkpoint, and each delivery is recorded in the
	// tenant's log by Records (periodic.DeliveryRecord).
	Logs    vlog.Store
	Records audit.EventWriter
	// Cosigned, when set (the deployment has witnesses), is where the
	// cosigned checkpoints are: each digest then carries the tenant's
	// latest cosigned checkpoint, with the witnesses' cosignatures, so
	// that a verifier requiring them (auditlog verify --witness-key)
	// checks it; the latest signed one while none is cosigned yet.
	Cosigned vlog.CosignStore

	tally passTally // of the pass under way (RunOnce)
}

// RunOnce passes over every tenant of the directory. A tenant's failure
// (the bucket down, say) is logged, kept in its state and retried next
// pass; it does not stop the others. It returns the first error.
func (s *Scheduler) RunOnce(ctx context.Context) error {
	var first error
	after := ""
	s.tally = passTally{}
	defer s.logPass()
	for {
		page, err := s.Tenants.Tenants(ctx, after, audit.MaxTenantPage)
		if err != nil {
			return err
		}
		for _, t := range page {
			err := s.pass(ctx, t)
			for s.WaitHeld && errors.Is(err, errHeld) && ctx.Err() == nil {
				time.Sleep(200 * time.Millisecond)
				err = s.pass(ctx, t)
			}
			if err != nil && !errors.Is(err, errHeld) {
				s.Log.Warn("periodic export: the pass stopped; retried next pass", "tenant", t.ID, "err", err)
				if first == nil {
					first = err
				}
			}
		}
		if len(page) < audit.MaxTenantPage {
			return first
		}
		after = page[len(page)-1].ID
	}
}

// Run calls RunOnce every interval until ctx ends.
func (s *Scheduler) Run(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		_ = s.RunOnce(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

var errHeld = errors.New("held by another replica")

// passTally counts what one pass delivered, for its one summary line: a
// backfill of months of daily windows is one line at info, each window
// one at debug (issue 42: the demo's first screen scrolled away under
// 170 lines).
type passTally struct {
	windows     int
	events      int64
	tenants     map[string]bool
	first, last time.Time
}

func (t *passTally) add(win Window, events int64) {
	if t.tenants == nil {
		t.tenants = map[string]bool{}
	}
	t.windows++
	t.events += events
	t.tenants[win.TenantID] = true
	if t.first.IsZero() || win.Start.Before(t.first) {
		t.first = win.Start
	}
	if win.Start.After(t.last) {
		t.last = win.Start
	}
}

// logPass says what the pass delivered, when it delivered anything.
func (s *Scheduler) logPass() {
	t := s.tally
	if t.windows == 0 {
		return
	}
	s.Log.Info("periodic export pass delivered", "windows", t.windows, "tenants", len(t.tenants), "events", t.events,
		"from", t.first.Format(time.RFC3339), "to", t.last.Format(time.RFC3339))
}

// pass exports a tenant's due windows and late files under its lease.
func (s *Scheduler) pass(ctx context.Context, t audit.Tenant) error {
	st, err := s.Store.PeriodicState(ctx, t.ID)
	if err != nil || !st.Active(t.Plan) {
		return err
	}
	if st.RetryAt.After(s.Now()) { // backing off after failures
		if s.Observe != nil {
			s.Observe(st.TenantID, s.undelivered(&st))
		}
		return nil
	}
	if err := s.renew(ctx, &st); err != nil {
		return err
	}
	err = s.export(ctx, &st)
	if err != nil {
		st.Failed(err, s.Now())
	} else {
		st.LastError, st.Failures, st.RetryAt = "", 0, time.Time{}
	}
	st.LeaseUntil = s.Now() // released
	if perr := s.Store.PutPeriodicState(context.WithoutCancel(ctx), &st); perr != nil && err == nil {
		err = perr
	}
	if s.Observe != nil {
		s.Observe(st.TenantID, s.undelivered(&st))
	}
	return err
}

// renew takes or extends the lease; errHeld when another replica has it.
func (s *Scheduler) renew(ctx context.Context, st *periodic.State) error {
	if err := st.Claim(s.Owner, s.Now(), s.Lease); err != nil {
		return errHeld
	}
	if err := s.Store.PutPeriodicState(ctx, st); err != nil {
		if audit.ErrorCode(err) == audit.ECONFLICT {
			return errHeld
		}
		return err
	}
	return nil
}

// undelivered is how long the oldest due window has waited.
func (s *Scheduler) undelivered(st *periodic.State) time.Duration {
	start, end, due := st.DueWindow(s.Now(), s.Settle)
	if !due || start.IsZero() {
		return 0
	}
	return s.Now().Sub(end.Add(s.Settle))
}

// export writes the due windows, then the late files.
func (s *Scheduler) export(ctx context.Context, st *periodic.State) error {
	bucket, prefix, err := s.Bucket(st)
	if err != nil {
		return err
	}
	w := &Writer{Bucket: bucket, Prefix: prefix, Key: s.Key, TempDir: s.TempDir, Now: s.Now}
	if st.NextStart.IsZero() {
		// The chain starts at the window of the tenant's first event. A
		// tenant whose first event is not visible yet (registered by its
		// first write, which Elasticsearch shows after its refresh) waits
		// for the next pass: starting at now would leave that event's
		// window out of the chain for good.
		sp, err := s.Events.EventSpan(ctx, audit.Filter{TenantID: st.TenantID})
		if err != nil || !sp.Any {
			return err
		}
		st.NextStart = periodic.WindowStart(sp.First, st.Interval)
	}
	if err := s.publishKeys(ctx, bucket, prefix, st.TenantID); err != nil {
		return err
	}
	for {
		start, end, due := st.DueWindow(s.Now(), s.Settle)
		if !due {
			break
		}
		win := Window{TenantID: st.TenantID, Start: start, End: end}
		if err := s.deliver(ctx, w, st, win, s.windowEvents(ctx, win)); err != nil {
			return fmt.Errorf("window %s: %w", start.Format(time.RFC3339), err)
		}
	}
	return s.late(ctx, w, st)
}

// deliver writes win's file and digest, records them, and moves the
// chain's head, renewing the lease: until the state is stored, a crash
// leaves the window to export again (its objects are then rewritten).
func (s *Scheduler) deliver(ctx context.Context, w *Writer, st *periodic.State, win Window, events Events) error {
	f, err := w.WriteFile(ctx, win, events)
	if err != nil {
		return err
	}
	var prev *periodic.Digest
	if h := st.Head; h != nil {
		prev = &periodic.Digest{TenantID: h.TenantID, WindowStart: h.WindowStart, WindowEnd: h.WindowEnd, Late: h.Late, Signature: h.Signature}
	}
	if s.Logs != nil {
		cp, err := s.logCheckpoint(ctx, win.TenantID)
		if err != nil {
			return err
		}
		w.Checkpoint = cp
	}
	d, err := w.Seal(ctx, win, []periodic.DigestFile{f}, prev)
	if err != nil {
		return err
	}
	key := periodic.DigestKey(w.Prefix, win.TenantID, win.Start, win.End, win.Late)
	rec := periodic.Record{TenantID: win.TenantID, WindowStart: d.WindowStart, WindowEnd: d.WindowEnd, Late: win.Late, Count: f.Count,
		SHA256: f.SHA256, DataKey: f.Key, DigestKey: key, KeyID: d.KeyID, Bucket: st.Bucket, DeliveredAt: audit.NewTimestamp(s.Now())}
	if err := s.Store.PutPeriodicRecord(ctx, rec); err != nil {
		return err
	}
	if err := s.recordDelivery(ctx, &d, key); err != nil {
		return err
	}
	st.Advance(&d, key)
	s.Log.Debug("periodic export delivered", "tenant", win.TenantID, "window", win.Start.Format(time.RFC3339), "late", win.Late, "events", f.Count, "key", f.Key)
	s.tally.add(win, f.Count)
	return s.renew(ctx, st)
}

// windowEvents reads win's events from the store in file order.
func (s *Scheduler) windowEvents(ctx context.Context, win Window) Events {
	return scanned(ctx, s.Events, audit.Filter{TenantID: win.TenantID, From: &win.Start, To: &win.End})
}

// scanned reads the events of f from sc in file order (timestamp, then
// id).
func scanned(ctx context.Context, sc audit.EventScanner, f audit.Filter) Events {
	return func(yield func(*audit.Event) error) error {
		return sc.ScanEvents(ctx, f, audit.Sort{Field: audit.SortTimestamp}, func(batch []audit.Event) error {
			for i := range batch {
				if err := yield(&batch[i]); err != nil {
					return err
				}
			}
			return nil
		})
	}
}

// KeysKey is where a tenant's prefix holds the public key of id, so that
// a copy of the prefix carries what verifies it.
func KeysKey(prefix, tenant, id string) string {
	return prefix + "/" + tenant + "/keys/" + id + ".pem"
}

// publishKeys writes the public keys the tenant's prefix lacks.
func (s *Scheduler) publishKeys(ctx context.Context, b blob.Store, prefix, tenant string) error {
	have, err := b.List(ctx, prefix+"/"+tenant+"/keys/")
	if err != nil {
		return err
	}
	held := map[string]bool{}
	for _, k := range have {
		held[k] = true
	}
	for id, pem := range s.PublicKeys {
		if k := KeysKey(prefix, tenant, id); !held[k] {
			if err := b.Put(ctx, k, bytes.NewReader(pem), int64(len(pem))); err != nil {
				return err
			}
		}
	}
	return nil
}

// recordDelivery writes the delivery of d into the tenant's log (nothing
// when Records is unset). Until it is written the chain's head does not
// move, so a failure exports the window again and records it then.
func (s *Scheduler) recordDelivery(ctx context.Context, d *periodic.Digest, key string) error {
	if s.Records == nil {
		return nil
	}
	res, err := s.Records.WriteEvents(ctx, []audit.Event{periodic.DeliveryRecord(d, key, s.Now())})
	if err != nil {
		return err
	}
	if r := res[0]; r.Status != audit.WriteCreated && r.Status != audit.WriteDuplicate {
		return fmt.Errorf("recording the delivery of %s in the log: %s %s", key, r.Status, r.Reason)
	}
	return nil
}

// logCheckpoint is the checkpoint a tenant's next digest carries: the
// latest cosigned one when witnesses cosign the log and one is, else the
// latest signed one. The window's events were sealed long before it
// settled, so either covers them; the cosigned one lags the latest by
// the witnesses' round trip, or by an outage of theirs.
func (s *Scheduler) logCheckpoint(ctx context.Context, tenant string) (string, error) {
	if s.Cosigned != nil {
		c, err := s.Cosigned.CosignedCheckpoint(ctx, tenant)
		if err != nil {
			return "", err
		}
		if c.Size > 0 {
			return c.Note, nil
		}
	}
	ls, err := s.Logs.LogState(ctx, tenant)
	return ls.Checkpoint, err
}
