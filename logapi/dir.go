package logapi

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/auditlog/auditlog/audit/vlog"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/auditlog/auditlog/audit"
)

// A saved copy of a tenant's log (auditlog log verify --api --save) is a
// directory of three files, verified offline (--dir) as the API is:
const (
	// CheckpointFile is the signed checkpoint, as GET /api/log/checkpoint
	// answered it.
	CheckpointFile = "checkpoint"
	// LeavesFile holds the checkpoint's leaves, one JSON object a line:
	// {"index":0,"eventId":"evt_audit_…","leafHash":"<base64>"}.
	LeavesFile = "leaves.jsonl"
	// EventsFile holds the events of those leaves that remain, one a line,
	// as GET /api/audit-logs and the JSON lines export write them.
	EventsFile = "events.jsonl"
)

// maxLine bounds a line read from a saved copy: an event holds at most
// 256 KiB of details.
const maxLine = 1 << 20

// Dir is a saved copy of a tenant's log, read as the API is. Leaves are
// read in order: reading on from where the last call stopped costs
// nothing more.
type Dir struct {
	Path   string
	leaves *os.File
	sc     *bufio.Scanner
	next   int64 // the index of the leaf sc reads next
}

// SignedCheckpoint returns the saved checkpoint.
func (d *Dir) SignedCheckpoint(context.Context, bool) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(d.Path, CheckpointFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, audit.Wrap(audit.ENOTFOUND, err, "no checkpoint in %s", d.Path)
	}
	return b, err
}

// leafLine is a line of LeavesFile.
type leafLine struct {
	Index    int64  `json:"index"`
	EventID  string `json:"eventId"`
	LeafHash string `json:"leafHash"`
}

// Leaves reads the saved leaves from start, at most n.
func (d *Dir) Leaves(_ context.Context, start int64, n int) ([]vlog.Leaf, error) {
	if d.sc == nil || start < d.next {
		if err := d.Close(); err != nil {
			return nil, err
		}
		f, err := os.Open(filepath.Join(d.Path, LeavesFile))
		if err != nil {
			return nil, err
		}
		d.leaves, d.sc, d.next = f, bufio.NewScanner(f), 0
		d.sc.Buffer(make([]byte, 64<<10), maxLine)
	}
	var out []vlog.Leaf
	for len(out) < n && d.sc.Scan() {
		var l leafLine
		if err := json.Unmarshal(d.sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("%s: %w", LeavesFile, err)
		}
		d.next = l.Index + 1
		if l.Index < start {
			continue
		}
		hs, err := DecodeHashes([]string{l.LeafHash})
		if err != nil {
			return nil, fmt.Errorf("%s: leaf %d: %w", LeavesFile, l.Index, err)
		}
		out = append(out, vlog.Leaf{Index: l.Index, EventID: l.EventID, Hash: hs[0]})
	}
	return out, d.sc.Err()
}

// Close closes the leaves file.
func (d *Dir) Close() error {
	if d.leaves == nil {
		return nil
	}
	err := d.leaves.Close()
	d.leaves, d.sc = nil, nil
	return err
}

// Events reads the saved events, 1,000 at a time.
func (d *Dir) Events(_ context.Context, fn func([]audit.Event) error) error {
	batch := make([]audit.Event, 0, 1000)
	err := d.lines(EventsFile, func(line []byte) (bool, error) {
		var e audit.Event
		if err := json.Unmarshal(line, &e); err != nil {
			return false, fmt.Errorf("%s: %w", EventsFile, err)
		}
		if batch = append(batch, e); len(batch) == cap(batch) {
			err := fn(batch)
			batch = batch[:0]
			return err == nil, err
		}
		return true, nil
	})
	if err == nil && len(batch) > 0 {
		err = fn(batch)
	}
	return err
}

// lines calls fn with each non-empty line of the file, until it answers
// false or an error.
func (d *Dir) lines(name string, fn func([]byte) (bool, error)) error {
	f, err := os.Open(filepath.Join(d.Path, name))
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	for sc.Scan() {
		if len(sc.Bytes()) == 0 {
			continue
		}
		if more, err := fn(sc.Bytes()); err != nil || !more {
			return err
		}
	}
	return sc.Err()
}

// Recorder reads a tenant's log from a source (the API) and saves what a
// verification read into a directory: the first checkpoint, its leaves,
// and the events of those leaves. Finish writes the events file.
type Recorder struct {
	Src interface {
		SignedCheckpoint(ctx context.Context, cosigned bool) ([]byte, error)
		Leaves(ctx context.Context, start int64, n int) ([]vlog.Leaf, error)
		Events(ctx context.Context, fn func([]audit.Event) error) error
	}
	Dir    string
	first  bool
	size   int64
	leaves *os.File
	events *os.File
	ids    map[string]bool
}

// SignedCheckpoint reads the source's; the first one read is saved.
func (r *Recorder) SignedCheckpoint(ctx context.Context, cosigned bool) ([]byte, error) {
	b, err := r.Src.SignedCheckpoint(ctx, cosigned)
	if err != nil || r.first {
		return b, err
	}
	r.first = true
	text, _, _ := strings.Cut(string(b), "\n\n")
	if cp, err := vlog.ParseCheckpoint(text + "\n"); err == nil {
		r.size = cp.Size // else not a checkpoint: the verification says so
	}
	if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		return nil, err
	}
	return b, os.WriteFile(filepath.Join(r.Dir, CheckpointFile), b, 0o644)
}

// Leaves reads the source's and saves those of the first checkpoint.
func (r *Recorder) Leaves(ctx context.Context, start int64, n int) ([]vlog.Leaf, error) {
	got, err := r.Src.Leaves(ctx, start, n)
	if err != nil {
		return nil, err
	}
	if r.leaves == nil {
		if r.leaves, err = os.Create(filepath.Join(r.Dir, LeavesFile)); err != nil {
			return nil, err
		}
		r.ids = map[string]bool{}
	}
	w := bufio.NewWriter(r.leaves)
	for _, l := range got {
		if l.Index >= r.size {
			break
		}
		r.ids[l.EventID] = true
		b, _ := json.Marshal(leafLine{Index: l.Index, EventID: l.EventID, LeafHash: base64.StdEncoding.EncodeToString(l.Hash[:])})
		_, _ = w.Write(append(b, '\n'))
	}
	return got, w.Flush()
}

// ReadTile reads the source's tile, when it has tiles (the API does).
func (r *Recorder) ReadTile(ctx context.Context, t tlog.Tile) ([]byte, error) {
	ts, ok := r.Src.(interface {
		ReadTile(ctx context.Context, t tlog.Tile) ([]byte, error)
	})
	if !ok {
		return nil, errors.New("the source has no tiles")
	}
	return ts.ReadTile(ctx, t)
}

// Events reads the source's and keeps them aside until Finish.
func (r *Recorder) Events(ctx context.Context, fn func([]audit.Event) error) error {
	f, err := os.CreateTemp(r.Dir, ".events-*")
	if err != nil {
		return err
	}
	r.events = f
	w := bufio.NewWriter(f)
	err = r.Src.Events(ctx, func(batch []audit.Event) error {
		for i := range batch {
			b, err := json.Marshal(&batch[i])
			if err != nil {
				return err
			}
			_, _ = w.Write(append(b, '\n'))
		}
		return fn(batch)
	})
	if err == nil {
		err = w.Flush()
	}
	return err
}

// Finish writes the events file: the events read that the first
// checkpoint's leaves hold (an event sealed later is not in the saved
// copy, whose checkpoint does not cover it), and closes the files.
func (r *Recorder) Finish() error {
	defer func() {
		if r.leaves != nil {
			r.leaves.Close()
		}
		if r.events != nil {
			r.events.Close()
			os.Remove(r.events.Name())
		}
	}()
	if r.events == nil {
		return errors.New("nothing was read")
	}
	if _, err := r.events.Seek(0, io.SeekStart); err != nil {
		return err
	}
	out, err := os.Create(filepath.Join(r.Dir, EventsFile))
	if err != nil {
		return err
	}
	w := bufio.NewWriter(out)
	sc := bufio.NewScanner(r.events)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	for sc.Scan() {
		var e struct{ ID string }
		if json.Unmarshal(sc.Bytes(), &e) == nil && r.ids[e.ID] {
			_, _ = w.Write(append(sc.Bytes(), '\n'))
		}
	}
	if err := errors.Join(sc.Err(), w.Flush()); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
