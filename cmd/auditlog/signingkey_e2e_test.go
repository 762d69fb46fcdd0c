package main

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
	"github.com/auditlog/auditlog/keyfile"
	"github.com/auditlog/auditlog/sqlite"
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

// TestASigningKeyInTheStoreIsMovedOut: a store written by an earlier
// version holds the generated signing key. On SQLite with no key
// configured, serve moves it into signing-key.pem (the same key: pinned
// keys still verify) and deletes it from the store. On Elasticsearch,
// where a key file is required, the store's key is retired: deleted, its
// public key published as an earlier key, so that what it signed still
// verifies.
func TestASigningKeyInTheStoreIsMovedOut(t *testing.T) {
	ctx := context.Background()
	t.Run("sqlite", func(t *testing.T) {
		dir := t.TempDir()
		accepttest.File(t, dir, AcceptKeyFile) // the key serve reads in this data directory
		s, err := sqlite.Open(ctx, sqlite.Config{Accept: accepttest.Acceptor, Path: filepath.Join(dir, "audit.db")})
		if err != nil {
			t.Fatal(err)
		}
		legacy := seedLegacyKey(t, s)
		s.Close()
		m := startMain(t, "serve", map[string]string{"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_DATA_DIR": dir, "AUDITLOG_JWT_SECRET": "s3cret"})
		cur, _ := logKeyOf(t, m)
		m.Close()
		if !cur.Equal(legacy.Public()) {
			t.Fatal("the moved key is not the one that signs")
		}
		if k, _, err := keyfile.Load(filepath.Join(dir, SigningKeyFile)); err != nil || !k.Equal(legacy) {
			t.Fatalf("the key file does not hold the store's key: %v", err)
		}
		if st, _ := os.Stat(filepath.Join(dir, SigningKeyFile)); st.Mode().Perm() != 0o600 {
			t.Fatalf("key file mode %v", st.Mode().Perm())
		}
		for _, v := range sqliteKeyValues(t, dir) {
			if len(v) == ed25519.SeedSize && ed25519.NewKeyFromSeed(v).Equal(legacy) {
				t.Fatal("the store still holds the key")
			}
		}
	})
	t.Run("elasticsearch", func(t *testing.T) {
		esURL, prefix := testenv.ElasticsearchURL(t), testenv.Name("auditlog-keymove")
		c, err := elasticsearch.New(elasticsearch.Config{URLs: []string{esURL}, IndexPrefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		legacy := seedLegacyKey(t, storeOn(t, c))
		vars := esServeEnv(t, prefix)
		vars["AUDITLOG_PERIODIC_SIGNING_KEY"] = testKeyFile(t)
		vars["AUDITLOG_ACCEPT_KEY"] = testAcceptKey(t)
		m := startMain(t, "serve", vars)
		cur, earlier := logKeyOf(t, m)
		m.Close()
		if cur.Equal(legacy.Public()) || len(earlier) != 1 || !pubOfVerifierKey(t, earlier[0]).Equal(legacy.Public()) {
			t.Fatalf("the store's key is not published as the earlier key: %v", earlier)
		}
		for _, v := range esKeyValues(t, vars) {
			if len(v) == ed25519.SeedSize && ed25519.NewKeyFromSeed(v).Equal(legacy) {
				t.Fatal("the cluster still holds the key")
			}
		}
	})
}

// seedLegacyKey stores a signing key as versions before issue 41 did.
func seedLegacyKey(t *testing.T, keys audit.KeyStore) ed25519.PrivateKey {
	t.Helper()
	_, k, _ := ed25519.GenerateKey(nil)
	if _, err := keys.Key(context.Background(), legacySigningKey, k.Seed()); err != nil {
		t.Fatal(err)
	}
	return k
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
