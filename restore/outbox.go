package restore

import (
	"bytes"
	"context"
	"path/filepath"

	"github.com/auditlog/auditlog/audit/restorejob"

	"github.com/auditlog/auditlog/internal/atomicfile"
)

// Outbox writes each request to Dir/<requestId>.json: the embedded
// default when neither Kafka nor a webhook is configured, like the e-mail
// outbox. Nothing applies them; the file shows what would be sent.
type Outbox struct{ Dir string }

// Send implements Sender: written to a temporary file, synced, renamed.
func (o *Outbox) Send(_ context.Context, r restorejob.Request, body []byte) error {
	_, err := atomicfile.Write(filepath.Join(o.Dir, r.RequestID+".json"), bytes.NewReader(append(body, '\n')), -1)
	return err
}

// Destination implements Sender.
func (o *Outbox) Destination() string { return "outbox " + o.Dir }
