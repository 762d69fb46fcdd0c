package testenv_test

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestEachRunOwnsItsServices: scripts/lib.sh gives each `make test` run
// a state directory and ports of its own, so two runs on one machine (or
// one beside `make services-up`, on the fixed ports 19200/19092/19500)
// never share or stop each other's services.
func TestEachRunOwnsItsServices(t *testing.T) {
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	run := func() map[string]string {
		cmd := exec.Command("bash", "-c", `set -e; . scripts/lib.sh; trap - EXIT; own_services >/dev/null
			echo "dir=$AUDITLOG_SERVICES_DIR"; echo "es=$AUDITLOG_TEST_ES_PORT"; echo "kafka=$AUDITLOG_TEST_KAFKA_PORT"; echo "s3=$AUDITLOG_TEST_S3_PORT"`)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "AUDITLOG_SERVICES_DIR=")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		m := map[string]string{}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			k, v, _ := strings.Cut(line, "=")
			m[k] = v
		}
		t.Cleanup(func() { os.RemoveAll(m["dir"]) })
		return m
	}
	a, b := run(), run()
	if a["dir"] == "" || a["dir"] == b["dir"] {
		t.Fatalf("state directories %q and %q must be distinct", a["dir"], b["dir"])
	}
	if st, err := os.Stat(a["dir"]); err != nil || !st.IsDir() {
		t.Fatalf("state directory %q: %v", a["dir"], err)
	}
	for _, k := range []string{"es", "kafka", "s3"} {
		if a[k] == "" || a[k] == b[k] {
			t.Errorf("%s ports %q and %q must be set and distinct", k, a[k], b[k])
		}
		for _, fixed := range []string{"19200", "19092", "19500"} {
			if a[k] == fixed {
				t.Errorf("%s port %s is the fixed port of make services-up", k, fixed)
			}
		}
		ln, err := net.Listen("tcp", "127.0.0.1:"+a[k])
		if err != nil {
			t.Errorf("%s port %s is not free: %v", k, a[k], err)
			continue
		}
		ln.Close()
	}
	// A directory chosen by the caller is kept.
	cmd := exec.Command("bash", "-c", `. scripts/lib.sh; trap - EXIT; own_services >/dev/null; echo "$AUDITLOG_SERVICES_DIR"`)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "AUDITLOG_SERVICES_DIR=/tmp/chosen-by-caller")
	if out, err := cmd.Output(); err != nil || strings.TrimSpace(string(out)) != "/tmp/chosen-by-caller" {
		t.Fatalf("a caller's AUDITLOG_SERVICES_DIR must be kept: %q %v", out, err)
	}
}
