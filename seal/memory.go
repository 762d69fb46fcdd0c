package seal

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/auditlog/auditlog/audit/vlog"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/auditlog/auditlog/internal/atomicfile"
)

// Memory is what a verifier keeps of the logs it verified (issue 53): per
// origin, the largest checkpoint it verified, as the signed note it read,
// one file per origin in a directory, as Go's checksum database client
// keeps the latest tree it saw. A verifier refuses, as a rollback, a
// store or a service that shows a smaller tree than the kept one, or a
// tree that is not an extension of it: a database put back from an older
// copy passes every stateless check, not this one. The zero Memory (no
// directory) keeps nothing.
type Memory struct {
	Dir string
}

// file is the origin's file in the directory.
func (m Memory) file(origin string) string {
	return filepath.Join(m.Dir, url.PathEscape(origin))
}

// Kept returns the checkpoint kept for origin (ok false for none), when
// one of keys signed it. A checkpoint of origin signed by no pinned key
// is another log under the same name (a deployment started afresh, with
// its own key): it is not this log's, and ok is false, as for none; the
// next Keep replaces it. An insider cannot use that to start a tenant's
// memory over: it takes a log key the tenant pins. Errors: a kept file
// that is no checkpoint of origin.
func (m Memory) Kept(origin string, keys vlog.Keys) (vlog.Checkpoint, bool, error) {
	if m.Dir == "" {
		return vlog.Checkpoint{}, false, nil
	}
	b, err := os.ReadFile(m.file(origin))
	if errors.Is(err, fs.ErrNotExist) {
		return vlog.Checkpoint{}, false, nil
	}
	if err != nil {
		return vlog.Checkpoint{}, false, err
	}
	text, _, _ := strings.Cut(string(b), "\n\n")
	cp, err := vlog.ParseCheckpoint(text + "\n")
	if err != nil || cp.Origin != origin {
		return vlog.Checkpoint{}, false, fmt.Errorf("%s: not a checkpoint of %s: %v", m.file(origin), origin, err)
	}
	if _, err := keys.LogOnly().Open(b); err != nil {
		return vlog.Checkpoint{}, false, nil // another log of the same name
	}
	return cp, true, nil
}

// Keep records signed, the checkpoint cp verified under keys, when it is
// larger than the one kept (written whole or not at all, mode 0600).
func (m Memory) Keep(cp vlog.Checkpoint, signed []byte, keys vlog.Keys) error {
	if m.Dir == "" {
		return nil
	}
	if kept, ok, err := m.Kept(cp.Origin, keys); err != nil || ok && kept.Size >= cp.Size {
		return err
	}
	if err := os.MkdirAll(m.Dir, 0o700); err != nil {
		return err
	}
	_, err := atomicfile.Write(m.file(cp.Origin), bytes.NewReader(signed), int64(len(signed)))
	return err
}

// Rollback names a tree that goes back on a kept checkpoint: smaller, of
// the same size with another root, or larger without it as its prefix
// (rootAt gives the root of the first n leaves of the tree shown; nil
// when the verifier cannot compute it, and then a larger tree is taken).
// It returns nil when cp extends kept.
func Rollback(kept, cp vlog.Checkpoint, rootAt func(n int64) (tlog.Hash, error)) *Finding {
	detail := ""
	switch {
	case cp.Size < kept.Size:
		detail = fmt.Sprintf("the log shows a tree of %d leaves; %d were verified before (a rollback: an older copy of the store, or a fork)", cp.Size, kept.Size)
	case cp.Size == kept.Size && cp.Root != kept.Root:
		detail = fmt.Sprintf("the log shows another tree of the %d leaves verified before (a fork: root %s, verified %s)", cp.Size, cp.Root, kept.Root)
	case cp.Size > kept.Size && rootAt != nil:
		if r, err := rootAt(kept.Size); err != nil || r != kept.Root {
			detail = fmt.Sprintf("the log's tree of %d leaves does not extend the %d verified before (its first %d leaves make another root: a rollback and rewrite, or a fork)", cp.Size, kept.Size, kept.Size)
		}
	}
	if detail == "" {
		return nil
	}
	return &Finding{Kind: "rollback", Index: -1, Detail: detail}
}
