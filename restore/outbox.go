package restore

import (
	"context"
	"os"
	"path/filepath"

	"github.com/auditlog/auditlog/audit"
)

// Outbox writes each request to Dir/<requestId>.json: the embedded
// default when neither Kafka nor a webhook is configured, like the e-mail
// outbox. Nothing applies them; the file shows what would be sent.
type Outbox struct{ Dir string }

// Send implements Sender: written to a temporary file, synced, renamed.
func (o *Outbox) Send(_ context.Context, r audit.RestoreRequest, body []byte) error {
	if err := os.MkdirAll(o.Dir, 0o750); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(o.Dir, ".restore-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(body, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(o.Dir, r.RequestID+".json"))
}

// Destination implements Sender.
func (o *Outbox) Destination() string { return "outbox " + o.Dir }
