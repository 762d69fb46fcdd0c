package webhook_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"github.com/auditlog/auditlog/audit/vlog"
	"strings"
	"testing"

	"github.com/auditlog/auditlog/audit/stream"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
	"github.com/auditlog/auditlog/streaming"
	"github.com/auditlog/auditlog/streaming/webhook"
)

// logOf is a tenant's log of events built with x/mod's tlog: its stored
// hashes, and a checkpoint of its whole tree.
type logOf struct {
	hashes []tlog.Hash
	cp     string
}

func (l *logOf) ReadHashes(idx []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(idx))
	for i, x := range idx {
		if x >= int64(len(l.hashes)) {
			return nil, fmt.Errorf("no hash %d", x)
		}
		out[i] = l.hashes[x]
	}
	return out, nil
}

func newLog(t *testing.T, tenant string, events []audit.Event) *logOf {
	l := &logOf{}
	for i, e := range events {
		hs, err := tlog.StoredHashesForRecordHash(int64(i), vlog.LeafHash(e), l)
		if err != nil {
			t.Fatal(err)
		}
		l.hashes = append(l.hashes, hs...)
	}
	root, err := tlog.TreeHash(int64(len(events)), l)
	if err != nil {
		t.Fatal(err)
	}
	l.cp = fmt.Sprintf("auditlog.test/tenants/%s\n%d\n%s\n", tenant, len(events), base64.StdEncoding.EncodeToString(root[:]))
	return l
}

// captureOf is the lines a receiver keeps for events sent in batches of
// size, each event edited by edit first.
func captureOf(tenant, cp string, events []audit.Event, size int, edit func(i int, raw []byte) []byte) [][]byte {
	var lines [][]byte
	for from := 0; from < len(events); from += size {
		b := streaming.Batch{TenantID: tenant, StreamID: "s-1", Format: stream.FormatEvent, From: uint64(from), To: uint64(min(from+size, len(events))), Checkpoint: cp}
		for i := from; i < int(b.To); i++ {
			raw, _ := events[i].AppendJSON(nil)
			b.Events = append(b.Events, streaming.Entry{LeafIndex: uint64(i), Event: edit(i, raw)})
		}
		lines = append(lines, b.AppendJSON(nil))
	}
	return lines
}

// TestCaptureCheck: a webhook capture of 600 events in batches of 100 (one
// sent twice) proves whole, each event the leaf the tree holds; an edited
// event, a lost batch, a repeat that differs, a batch of another tenant
// are each named; a masked event is not provable, and not a problem.
func TestCaptureCheck(t *testing.T) {
	const tenant = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
	g := gen.New(gen.Config{Seed: 9, Tenants: 1, WithIDs: true, FirstTenantID: tenant}, 600)
	var events []audit.Event
	for range 600 {
		events = append(events, g.Next())
	}
	l := newLog(t, tenant, events)
	same := func(_ int, raw []byte) []byte { return raw }
	lines := captureOf(tenant, l.cp, events, 100, same)
	check := func(lines [][]byte) (webhook.CaptureReport, string) {
		var out strings.Builder
		rep, err := webhook.CheckCapture(bytes.NewReader(bytes.Join(lines, []byte("\n"))), tenant, "s-1", vlog.Keys{},
			func(vlog.Checkpoint) tlog.HashReader { return l }, func(s string) { out.WriteString(s + "\n") })
		if err != nil {
			t.Fatal(err)
		}
		return rep, out.String()
	}
	rep, out := check(append(lines, lines[2]))
	if !rep.OK() || rep.Events != 600 || rep.Repeats != 100 || rep.Proved != 600 || rep.Covered != 600 || rep.LogSize != 600 {
		t.Fatalf("the capture: %+v\n%s", rep, out)
	}
	edited := captureOf(tenant, l.cp, events, 100, func(i int, raw []byte) []byte {
		if i == 250 {
			return bytes.Replace(raw, []byte(`"action":"`), []byte(`"action":"x`), 1)
		}
		return raw
	})
	for name, c := range map[string]struct {
		lines [][]byte
		want  string
	}{
		"edited":           {edited, "leaf 250: the event received is not the one the log holds (altered)"},
		"lost":             {append(append([][]byte{}, lines[:3]...), lines[4:]...), "leaves [300, 400) are in no batch: a gap"},
		"a changed repeat": {append(append([][]byte{}, lines...), edited[2]), "leaf 250: the event received is not the one the log holds (altered)"},
		"another tenant":   {append(append([][]byte{}, lines...), bytes.ReplaceAll(lines[0], []byte(tenant), []byte("8c9e6679-7425-40de-944b-e07fc1f90ae7"))), "a batch of tenant 8c9e6679"},
	} {
		if rep, out := check(c.lines); rep.OK() || !strings.Contains(out, c.want) {
			t.Errorf("%s: %+v\n%s", name, rep, out)
		}
	}
	var named strings.Builder // without the tree, a changed repeat is named as such
	rep, err := webhook.CheckCapture(bytes.NewReader(bytes.Join(append(append([][]byte{}, lines...), edited[2]), []byte("\n"))), tenant, "s-1",
		vlog.Keys{}, nil, func(s string) { named.WriteString(s + "\n") })
	if err != nil || rep.OK() || !strings.Contains(named.String(), "leaf 250 received again with another content") {
		t.Errorf("a changed repeat, no tree: %+v %v\n%s", rep, err, named.String())
	}
	masked := captureOf(tenant, l.cp, events, 100, func(i int, raw []byte) []byte {
		if i%2 == 0 {
			return bytes.Replace(raw, []byte(`"ip":"`), []byte(`"ip":"hmac-sha256:`), 1)
		}
		return raw
	})
	if rep, out := check(masked); !rep.OK() || rep.Proved != 300 || rep.Unprovable != 300 {
		t.Errorf("masked: %+v\n%s", rep, out)
	}
}
