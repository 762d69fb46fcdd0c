package periodicexport

import (
	"archive/tar"
	"context"
	"io"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/hold"
	"github.com/auditlog/auditlog/audit/periodic"
)

// HoldPrefix is the key prefix of a legal hold's export: the prefix to
// give auditlog verify (--prefix) over the unpacked copy.
func HoldPrefix(h hold.Hold) string { return "legal-hold-" + h.ID }

// ExportHold writes the events a legal hold's scope matches (issue 55),
// read from events (the store as it is: held events past their
// retention included), as one window of the periodic export's format: a
// gzip NDJSON data file and its digest, signed with the export key,
// first of its own chain, carrying the tenant's log checkpoint, plus the
// public keys; all as a tar stream to out, under HoldPrefix. Counsel
// unpacks it and runs `auditlog verify --dir <copy> --prefix
// legal-hold-<id> --tenant <tenant>` with the keys of GET
// /api/export-keys pinned. The window is the scope's range, or the span
// of its events where the scope leaves it open.
func (s *Scheduler) ExportHold(ctx context.Context, out io.Writer, h hold.Hold, events audit.EventScanner, span audit.EventReader) error {
	f, err := h.Scope.Filter(h.TenantID)
	if err != nil {
		return err
	}
	win := Window{TenantID: h.TenantID, Start: s.Now().UTC().Truncate(time.Millisecond)}
	win.End = win.Start
	if sp, err := span.EventSpan(ctx, f); err != nil {
		return err
	} else if sp.Any {
		win.Start, win.End = sp.First, sp.Last.Add(time.Millisecond)
	}
	if f.From != nil {
		win.Start = *f.From
	}
	if f.To != nil {
		win.End = *f.To
	}
	tw := tar.NewWriter(out)
	w := &Writer{Bucket: tarBucket{tw: tw, now: s.Now}, Prefix: HoldPrefix(h), Key: s.Key, TempDir: s.TempDir, Now: s.Now}
	file, err := w.WriteFile(ctx, win, scanned(ctx, events, f))
	if err != nil {
		return err
	}
	if s.Logs != nil {
		if w.Checkpoint, err = s.logCheckpoint(ctx, h.TenantID); err != nil {
			return err
		}
	}
	if _, err := w.Seal(ctx, win, []periodic.DigestFile{file}, nil); err != nil {
		return err
	}
	if err := s.publishKeys(ctx, w.Bucket, w.Prefix, h.TenantID); err != nil {
		return err
	}
	return tw.Close()
}

// tarBucket is a blob.Store that writes each object put as an entry of a
// tar stream; it holds nothing to read back.
type tarBucket struct {
	tw  *tar.Writer
	now func() time.Time
}

func (b tarBucket) Put(_ context.Context, key string, r io.Reader, size int64) error {
	if err := b.tw.WriteHeader(&tar.Header{Name: key, Mode: 0o644, Size: size, ModTime: b.now(), Typeflag: tar.TypeReg}); err != nil {
		return err
	}
	_, err := io.CopyN(b.tw, r, size)
	return err
}

func (tarBucket) Open(context.Context, string) (io.ReadCloser, error) {
	return nil, audit.Errorf(audit.ENOTFOUND, "a tar stream is written, not read")
}

func (tarBucket) Delete(context.Context, string) error { return nil }

func (tarBucket) List(context.Context, string) ([]string, error) { return nil, nil }

func (tarBucket) DownloadURL(context.Context, string, string, time.Duration) (string, error) {
	return "", audit.Errorf(audit.ENOTSUPPORTED, "a tar stream has no URL")
}
