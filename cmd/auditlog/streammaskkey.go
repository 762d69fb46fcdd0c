package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/auditlog/auditlog/audit/mask"

	"github.com/auditlog/auditlog/keyfile"
)

// StreamMaskKeyFile is the embedded store's key of the streams' hashes,
// in the data directory.
const StreamMaskKeyFile = "stream-mask-key"

// streamMaskKey is the key each stream's hashes of masked fields are
// derived from (streaming.Streamer.MaskKey; issue 54: a hash keyed by the
// stream's id, which every batch carries, let any receiver hash a list
// of known e-mails and match them). It is a file of its own, apart from
// the masking key of secrets at ingest (a stream process need not hold
// that one): AUDITLOG_STREAM_MASK_KEY; on the embedded store
// <data-dir>/stream-mask-key, generated on the first start. Never a row
// of the store. Replacing it re-keys every stream's hashes from then on.
func (m *Main) streamMaskKey() ([]byte, error) {
	file, variable := m.Config.Streams.MaskKey, "AUDITLOG_STREAM_MASK_KEY"
	var key []byte
	var err error
	switch {
	case file != "":
		key, _, err = keyfile.LoadSecret(file, mask.MinKey)
	case m.Config.Store == "sqlite":
		file, variable = filepath.Join(m.Config.DataDir, StreamMaskKeyFile), "AUDITLOG_DATA_DIR"
		var created bool
		key, created, _, err = keyfile.LoadOrCreateSecret(file, mask.NewKey(), mask.MinKey)
		if created {
			m.Logger.Info("wrote the streams' masking key into the data directory", "file", file)
		}
	default:
		return nil, errors.New("AUDITLOG_STREAM_MASK_KEY must be set when streams are delivered from Elasticsearch")
	}
	if err != nil {
		return nil, fmt.Errorf("%s: the streams' masking key %s: %w", variable, file, err)
	}
	return key, m.Config.looseKey(m.Logger, variable, file)
}
