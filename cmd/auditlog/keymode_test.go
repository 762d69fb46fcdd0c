package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/auditlog/auditlog/internal/testkit/accepttest"
)

// TestAKeyFileOthersMayReadIsRefusedInProduction (issue 53): with
// AUDITLOG_MODE=production, serve refuses a signing key file or an
// acceptance key file or a streams' masking key file that others than its owner may read, naming the
// variable and the file; in development it starts and warns. The data
// directory serve creates, and the key files it generates, are its
// owner's alone.
func TestAKeyFileOthersMayReadIsRefusedInProduction(t *testing.T) {
	for _, variable := range []string{"AUDITLOG_PERIODIC_SIGNING_KEY", "AUDITLOG_ACCEPT_KEY", "AUDITLOG_STREAM_MASK_KEY"} {
		t.Run(variable, func(t *testing.T) {
			loose := map[string]string{"AUDITLOG_PERIODIC_SIGNING_KEY": testKeyFile(t), "AUDITLOG_ACCEPT_KEY": accepttest.File(t, t.TempDir(), "accept-key"),
				"AUDITLOG_STREAM_MASK_KEY": testStreamMaskKey(t)}
			if err := os.Chmod(loose[variable], 0o644); err != nil {
				t.Fatal(err)
			}
			start := func(mode string) (string, error) {
				vars := with(map[string]string{"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_DATA_DIR": t.TempDir(), "AUDITLOG_JWT_SECRET": "s3cret",
					"AUDITLOG_PERIODIC_EXPORT": "false", "AUDITLOG_MODE": mode}, loose)
				cfg, _, err := parseServerConfig("serve", nil, env(vars), io.Discard, io.Discard)
				if err != nil {
					t.Fatal(err)
				}
				var logs strings.Builder
				m := NewMain("serve", cfg, slog.New(slog.NewTextHandler(&logs, nil)))
				defer m.Close()
				err = m.Run(context.Background())
				return logs.String(), err
			}
			_, err := start("production")
			if err == nil || !strings.Contains(err.Error(), variable) || !strings.Contains(err.Error(), loose[variable]) || !strings.Contains(err.Error(), "0600") {
				t.Fatalf("production with a loose %s: %v", variable, err)
			}
			if logs, err := start("development"); err != nil || !strings.Contains(logs, "may be read by others") {
				t.Fatalf("development: %v\n%s", err, logs)
			}
		})
	}
	t.Run("generated", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "data")
		m := startMain(t, "serve", map[string]string{"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_DATA_DIR": dir, "AUDITLOG_JWT_SECRET": "s3cret", "AUDITLOG_PERIODIC_EXPORT": "false"})
		m.Close()
		if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o700 {
			t.Fatalf("the data directory: %v %v", st.Mode().Perm(), err)
		}
		for _, f := range []string{SigningKeyFile, AcceptKeyFile, MaskKeyFile, StreamMaskKeyFile, "audit.db"} {
			if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Mode().Perm() != 0o600 {
				t.Fatalf("%s: %v %v", f, st.Mode().Perm(), err)
			}
		}
	})
}
