package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCPUProfileIsWritten: AUDITLOG_CPU_PROFILE's file holds a profile
// (runtime/pprof's gzipped protocol buffer) once stopped, and a file that
// cannot be created is an error naming the variable.
func TestCPUProfileIsWritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.pprof")
	stop, err := startCPUProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0
	for i := range 20_000_000 {
		sum += i % 7
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	z, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("not a gzipped profile (%d bytes, sum %d): %v", len(data), sum, err)
	}
	raw, err := io.ReadAll(z)
	if err != nil || len(raw) == 0 {
		t.Fatalf("profile body: %d bytes, %v", len(raw), err)
	}
	if _, err := startCPUProfile(filepath.Join(t.TempDir(), "missing", "cpu.pprof")); err == nil || !strings.Contains(err.Error(), "AUDITLOG_CPU_PROFILE") {
		t.Fatalf("a file that cannot be created: %v", err)
	}
}
