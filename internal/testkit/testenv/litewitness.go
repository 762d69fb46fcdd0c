package testenv

import (
	"crypto/ed25519"
	"os"
	"testing"

	"filippo.io/torchwood"

	"github.com/auditlog/auditlog/internal/witnessrun"
)

// Litewitness is a real litewitness started for one test
// (internal/witnessrun), stopped at its end.
type Litewitness struct {
	*witnessrun.Witness
	t testing.TB
}

// StartLitewitness starts a litewitness named name. With CI=true, a
// missing build fails the test.
func StartLitewitness(t testing.TB, name string) *Litewitness {
	t.Helper()
	bin := require(t, "AUDITLOG_TEST_LITEWITNESS", os.Getenv("AUDITLOG_TEST_LITEWITNESS"))
	w, err := witnessrun.Start(bin, t.TempDir(), name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	return &Litewitness{Witness: w, t: t}
}

// Start starts it again after Stop.
func (w *Litewitness) Start() {
	w.t.Helper()
	if err := w.Restart(); err != nil {
		w.t.Fatal(err)
	}
}

// AddLog registers a log (witnessrun.Witness.AddLog).
func (w *Litewitness) AddLog(origin, vkey string) {
	w.t.Helper()
	if err := w.Witness.AddLog(origin, vkey); err != nil {
		w.t.Fatal(err)
	}
}

// Size is the size the witness last cosigned of origin's log.
func (w *Litewitness) Size(origin string) int64 {
	w.t.Helper()
	n, err := w.Witness.Size(origin)
	if err != nil {
		w.t.Fatal(err)
	}
	return n
}

// OtherWitnessKey is the key of a witness that cosigns nothing here.
func OtherWitnessKey(t testing.TB) string {
	t.Helper()
	_, priv, _ := ed25519.GenerateKey(nil)
	s, err := torchwood.NewCosignatureSigner("witness.test/other", priv)
	if err != nil {
		t.Fatal(err)
	}
	return s.Verifier().String()
}
