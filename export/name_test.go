package export_test

import (
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/exportjob"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/export"
)

func TestNamesSayWhatTheExportHolds(t *testing.T) {
	from, to := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 25, 9, 4, 59, 0, time.UTC)
	id := "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"
	for _, tc := range []struct {
		name     string
		f        audit.Filter
		query    string
		format   exportjob.Format
		expected string
	}{
		{"a window and filters", audit.Filter{From: &from, To: &to}, "action=delete&resourceType=queue&from=x&sort=action&async=true&format=csv", exportjob.FormatCSV,
			"audit-log_2026-11-01T0000Z_2026-11-25T0904Z_action-delete_resourceType-queue_1a2b3c4d.csv"},
		{"an open start, JSON lines", audit.Filter{To: &to}, "", exportjob.FormatJSONL, "audit-log_start_2026-11-25T0904Z_1a2b3c4d.jsonl"},
		{"a job stored before formats", audit.Filter{To: &to}, "", "", "audit-log_start_2026-11-25T0904Z_1a2b3c4d.csv"},
		{"unsafe characters", audit.Filter{To: &to}, "q=actor%3Agrace*+%22x%2Fy%22&actorEmail=a%40b.example", exportjob.FormatCSV,
			"audit-log_start_2026-11-25T0904Z_actorEmail-a-b.example_q-actor-grace---x-y-_1a2b3c4d.csv"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := export.Name(tc.f, tc.query, tc.format, id); got != tc.expected {
				t.Fatalf("got %s, want %s", got, tc.expected)
			}
		})
	}
	long := export.Name(audit.Filter{To: &to}, "q="+strings.Repeat("x", 500), exportjob.FormatCSV, id)
	if len(long) > 140 || !strings.HasSuffix(long, "_1a2b3c4d.csv") {
		t.Fatalf("a long query makes %s (%d bytes)", long, len(long))
	}
}
