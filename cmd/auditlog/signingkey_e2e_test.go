package main

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/auditlog/auditlog/keyfile"
)

// logKeyOf is GET /api/log-key's current key and earlier keys, parsed.
func logKeyOf(t *testing.T, m *Main) (current ed25519.PublicKey, earlier []string) {
	t.Helper()
	var k struct {
		VerifierKey string
		EarlierKeys []string
	}
	_, body := client{t, "http://" + m.Addr()}.do("GET", "/api/log-key", "", nil)
	if err := json.Unmarshal(body, &k); err != nil {
		t.Fatalf("log key: %s", body)
	}
	return pubOfVerifierKey(t, k.VerifierKey), k.EarlierKeys
}

func pubOfVerifierKey(t *testing.T, vkey string) ed25519.PublicKey {
	t.Helper()
	parts := strings.SplitN(vkey, "+", 3)
	if len(parts) != 3 {
		t.Fatalf("verifier key %q", vkey)
	}
	raw, err := base64.StdEncoding.DecodeString(parts[2])
	if err != nil || len(raw) != 33 {
		t.Fatalf("verifier key %q", vkey)
	}
	return ed25519.PublicKey(raw[1:])
}

// TestTheEmbeddedSigningKeyIsAFile: serve on a new data directory writes
// the signing key into signing-key.pem (0600), signs with it, and the
// store holds no private key; a restart keeps it.
func TestTheEmbeddedSigningKeyIsAFile(t *testing.T) {
	dir := t.TempDir()
	vars := map[string]string{"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_DATA_DIR": dir, "AUDITLOG_JWT_SECRET": "s3cret"}
	m := startMain(t, "serve", vars)
	cur, _ := logKeyOf(t, m)
	m.Close()
	file := filepath.Join(dir, SigningKeyFile)
	key, loose, err := keyfile.Load(file)
	if err != nil || loose || !key.Public().(ed25519.PublicKey).Equal(cur) {
		t.Fatalf("the key file: %v, loose %v, or not the published key", err, loose)
	}
	for _, v := range sqliteKeyValues(t, dir) {
		if len(v) == ed25519.SeedSize && ed25519.NewKeyFromSeed(v).Equal(key) {
			t.Fatal("the store holds the signing key")
		}
	}
	m = startMain(t, "serve", vars)
	if again, _ := logKeyOf(t, m); !again.Equal(cur) {
		t.Fatal("a restart changed the key")
	}
	m.Close()
}

// TestExportPeriodicOnElasticsearchNeedsAKeyFile: the periodic export's
// own command refuses an Elasticsearch store without a key file, naming
// the variable, before it touches the cluster.
func TestExportPeriodicOnElasticsearchNeedsAKeyFile(t *testing.T) {
	var out, errOut strings.Builder
	code := run([]string{"export-periodic", "--once"}, env(map[string]string{"AUDITLOG_STORE": "elasticsearch", "AUDITLOG_ES_URL": "http://127.0.0.1:1"}), &out, &errOut)
	if code == 0 || !strings.Contains(out.String()+errOut.String(), "AUDITLOG_PERIODIC_SIGNING_KEY must be set") {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errOut.String())
	}
}
