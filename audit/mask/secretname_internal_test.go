package mask

import (
	"math/rand/v2"
	"testing"
)

// appendSecretName, the allocation-free path of Secret, is SecretName on
// ASCII names and declines every other.
func TestAppendSecretNameIsSecretName(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte("aZzA_-. 09xQ\x7f\x00é")
	for range 20_000 {
		b := make([]byte, rng.IntN(12))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		name := string(b)
		got, ok := appendSecretName(nil, name)
		ascii := true
		for _, c := range b {
			ascii = ascii && c < 0x80
		}
		switch {
		case ok != ascii:
			t.Fatalf("%q: taken %v, ASCII %v", name, ok, ascii)
		case ok && string(got) != SecretName(name):
			t.Fatalf("%q: %q, SecretName %q", name, got, SecretName(name))
		}
	}
}
