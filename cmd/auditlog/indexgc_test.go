package main

import (
	"runtime/debug"
	"strconv"
	"testing"

	"github.com/auditlog/auditlog/indexer"
)

// TestTheIndexerSetsItsCollectorUnlessGOGCIsSet: without GOGC, `auditlog
// index` runs the collector at indexer.GCPercent; with it, the runtime's
// reading of GOGC stands.
func TestTheIndexerSetsItsCollectorUnlessGOGCIsSet(t *testing.T) {
	prev := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prev)
	if got := indexGC(func(string) string { return "" }); got != strconv.Itoa(indexer.GCPercent) {
		t.Errorf("without GOGC: reported %q, want %d", got, indexer.GCPercent)
	}
	if now := debug.SetGCPercent(100); now != indexer.GCPercent {
		t.Errorf("without GOGC: the collector runs at %d, want %d", now, indexer.GCPercent)
	}
	env := func(k string) string {
		if k == "GOGC" {
			return "50"
		}
		return ""
	}
	if got := indexGC(env); got != "50" {
		t.Errorf("with GOGC=50: reported %q", got)
	}
	if now := debug.SetGCPercent(100); now != 100 {
		t.Errorf("with GOGC set, the setting was changed to %d", now)
	}
}
