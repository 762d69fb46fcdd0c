package keyfile

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// A symmetric key file holds the key in standard base64 on one line
// (`openssl rand -base64 32` writes one), so that it can be pasted,
// mounted as a secret or compared by eye.

// LoadSecret reads the symmetric key of file: at least min bytes once
// decoded. loose reports a file that others than its owner may read.
// Errors name the file.
func LoadSecret(file string, min int) (key []byte, loose bool, err error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, false, err
	}
	key, err = base64.StdEncoding.DecodeString(string(bytes.TrimSpace(raw)))
	if err != nil {
		return nil, false, fmt.Errorf("%s: not a base64 key (openssl rand -base64 32 writes one)", file)
	}
	if len(key) < min {
		return nil, false, fmt.Errorf("%s: the key has %d bytes, want at least %d random bytes", file, len(key), min)
	}
	return key, Loose(file), nil
}

// Loose reports whether others than its owner may read file (group or
// world bits).
func Loose(file string) bool {
	st, err := os.Stat(file)
	return err == nil && st.Mode().Perm()&0o077 != 0
}

// WorldReadable reports whether any user may read file (world bits): a
// key the service's group may read (0440 with the service's group, as a
// Kubernetes secret with fsGroup mounts it) is not.
func WorldReadable(file string) bool {
	st, err := os.Stat(file)
	return err == nil && st.Mode().Perm()&0o007 != 0
}

// LoadOrCreateSecret reads file, or when it does not exist writes fresh
// to it first (0600) and reports created; two processes starting at once
// agree on one key.
func LoadOrCreateSecret(file string, fresh []byte, min int) (key []byte, created, loose bool, err error) {
	key, loose, err = LoadSecret(file, min)
	if !errors.Is(err, fs.ErrNotExist) {
		return key, false, loose, err
	}
	switch err := writeOnce(file, []byte(base64.StdEncoding.EncodeToString(fresh)+"\n")); {
	case errors.Is(err, fs.ErrExist):
		key, loose, err = LoadSecret(file, min)
		return key, false, loose, err
	case err != nil:
		return nil, false, false, err
	}
	return fresh, true, false, nil
}
