// Package searchdiff holds the differential check of the search language
// (issue 56): the embedded store and Elasticsearch must return the same
// events for every query (storetest.Differential). It is a package of its
// own because it opens both stores.
package searchdiff

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/auditlog/auditlog/elasticsearch"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/internal/testkit/storetest"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
	"github.com/auditlog/auditlog/sqlite"
)

// TestTheStoresGiveOneAnswer runs the check with a fixed seed, then a
// random one (printed; AUDITLOG_SEARCHDIFF_SEED gives it again), 300
// events and 2,500 queries each.
func TestTheStoresGiveOneAnswer(t *testing.T) {
	random := uint64(time.Now().UnixNano())
	if s := os.Getenv("AUDITLOG_SEARCHDIFF_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("AUDITLOG_SEARCHDIFF_SEED: %v", err)
		}
		random = v
	}
	t.Logf("random seed %d (AUDITLOG_SEARCHDIFF_SEED=%d to run it again)", random, random)
	lite, es := sqliteBackend(t), esBackend(t)
	for _, seed := range []uint64{1, random} {
		t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) { storetest.Differential(t, lite, es, seed, 300, 2500) })
	}
}

func sqliteBackend(t *testing.T) storetest.Backend {
	s, err := sqlite.Open(context.Background(), sqlite.Config{Accept: accepttest.Acceptor, Path: filepath.Join(t.TempDir(), "audit.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return storetest.Backend{Writer: s, Reader: s, Visible: func(testing.TB) {}}
}

func esBackend(t *testing.T) storetest.Backend {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := elasticsearch.New(elasticsearch.Config{URLs: []string{testenv.ElasticsearchURL(t)}, IndexPrefix: testenv.Name("auditlog-diff")})
	if err != nil {
		t.Fatal(err)
	}
	caps, err := c.Detect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s, err := elasticsearch.NewStore(c, caps, elasticsearch.StoreConfig{Accept: accepttest.Acceptor})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Bootstrap(ctx); err != nil {
		t.Fatal(err)
	}
	return storetest.Backend{Writer: s, Reader: s, Visible: func(t testing.TB) {
		if err := c.DoJSON(context.Background(), http.MethodPost, "/"+s.AllStreamsPattern()+"/_refresh?allow_no_indices=true", nil, nil); err != nil {
			t.Fatal(err)
		}
	}}
}
