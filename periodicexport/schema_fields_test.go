package periodicexport_test

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/testkit/schematest"
	"github.com/auditlog/auditlog/localfs"
	"github.com/auditlog/auditlog/periodicexport"
)

// TestEveryFieldInTheDataLine: a data line of the periodic export holds
// every field of audit.Event under its own name, and the line is valid
// against docs/schemas/data-line-v1.json, which names exactly the
// event's fields (additionalProperties false at each level).
func TestEveryFieldInTheDataLine(t *testing.T) {
	ctx := context.Background()
	e := schematest.Full(t)
	b := localfs.Dir{Root: t.TempDir()}
	w := &periodicexport.Writer{Bucket: b, Prefix: "exports", Key: newKey(t), TempDir: t.TempDir(), Now: time.Now}
	day := e.Timestamp.Truncate(24 * time.Hour)
	f, err := w.WriteFile(ctx, periodicexport.Window{TenantID: e.TenantID, Start: day, End: day.Add(24 * time.Hour)},
		func(yield func(*audit.Event) error) error { return yield(&e) })
	must(t, err)
	r, err := b.Open(ctx, f.Key)
	must(t, err)
	defer r.Close()
	zr, err := gzip.NewReader(r)
	must(t, err)
	sc := bufio.NewScanner(zr)
	if !sc.Scan() {
		t.Fatal("no line")
	}
	line := sc.Bytes()
	schematest.Check(t, "the periodic export's data line", e, schematest.Same(e), schematest.JSONLookup(t, line))
	var v map[string]any
	must(t, json.Unmarshal(line, &v))
	if err := loadSchema(t, "../docs/schemas/data-line-v1.json").VisitJSON(v); err != nil {
		t.Fatalf("the data line of every field is not valid against its schema: %v", err)
	}
}
