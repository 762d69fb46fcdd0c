package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startCPUProfile starts the CPU profile AUDITLOG_CPU_PROFILE names (the
// whole process, from here on) and returns what stops and writes it.
// runtime/pprof samples at 100 Hz: a few percent of a core at most, and
// only when asked for.
func startCPUProfile(path string) (func() error, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("AUDITLOG_CPU_PROFILE: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("AUDITLOG_CPU_PROFILE: %w", err)
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}
