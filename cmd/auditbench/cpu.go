package main

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cpuTime returns the CPU time (user + system) used so far by the process
// with pid, or by this process when pid is 0. It reads /proc; 0 when
// unknown.
func cpuTime(pid int) time.Duration {
	if pid == 0 {
		var ru syscall.Rusage
		if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
			return 0
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// Fields after the command name, which is in parentheses.
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	const ticks = 100 // USER_HZ on Linux
	return time.Duration(utime+stime) * time.Second / ticks
}

// cpuMeter measures the share of one core each watched process used over
// an interval.
type cpuMeter struct {
	pids  map[string]int // name -> pid (0: this process)
	start map[string]time.Duration
	t0    time.Time
}

func newCPUMeter(pids map[string]int) *cpuMeter {
	m := &cpuMeter{pids: pids, start: map[string]time.Duration{}, t0: time.Now()}
	for name, pid := range pids {
		m.start[name] = cpuTime(pid)
	}
	return m
}

// cores returns, per process, the cores used on average since the meter
// started (1.0 is one core fully busy).
func (m *cpuMeter) cores() map[string]float64 {
	wall := time.Since(m.t0)
	out := map[string]float64{}
	for name, pid := range m.pids {
		out[name] = float64(cpuTime(pid)-m.start[name]) / float64(wall)
	}
	return out
}

func readPid(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return -1
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return -1
	}
	return n
}

// used returns the CPU time the process named used since the meter
// started.
func (m *cpuMeter) used(name string) time.Duration {
	pid, ok := m.pids[name]
	if !ok {
		return 0
	}
	return cpuTime(pid) - m.start[name]
}

// settleCluster waits until Elasticsearch is idle (under 0.15 of a core
// over one second), at most 30 s, so that a run does not pay for the
// merges the run before it left behind; without the server's pid it
// returns at once.
func settleCluster(e *env) {
	pid, ok := e.pids["elasticsearch"]
	if !ok {
		return
	}
	for start := time.Now(); time.Since(start) < 30*time.Second; {
		m := newCPUMeter(map[string]int{"elasticsearch": pid})
		time.Sleep(time.Second)
		if m.cores()["elasticsearch"] < 0.15 {
			return
		}
	}
}
