package smtp

import (
	"context"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"time"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/google/uuid"

	"github.com/auditlog/auditlog/audit"
)

// StreamMessage returns the subject and plain-text body of a stream's
// alert: failing (it has failed for stream.AlertAfter) or recovered.
func (m *Mailer) StreamMessage(st stream.Stream, failing bool) (subject, body string) {
	var b strings.Builder
	h := st.Health
	at := func(t time.Time) string {
		if t.IsZero() {
			return "never"
		}
		return t.UTC().Format("2006-01-02 15:04 MST")
	}
	if failing {
		subject = fmt.Sprintf("Audit log stream %q has been failing since %s", st.Name, at(h.FailingSince))
		fmt.Fprintf(&b, "The audit log stream %q cannot deliver to its destination.\r\n\r\n", st.Name)
		fmt.Fprintf(&b, "State:         %s\r\nReason:        %s\r\nFailing since: %s\r\nLast success:  %s\r\n\r\n", st.State, st.Reason, at(h.FailingSince), at(h.LastSuccessAt))
		fmt.Fprintf(&b, "Nothing is lost: the events wait in the audit log and are delivered, in order, once the\r\n")
		fmt.Fprintf(&b, "destination takes them again (a paused stream after you resume it).\r\n\r\n")
	} else {
		subject = fmt.Sprintf("Audit log stream %q is delivering again", st.Name)
		fmt.Fprintf(&b, "The audit log stream %q delivers to its destination again.\r\n\r\n", st.Name)
		fmt.Fprintf(&b, "Last success:  %s\r\nLast error:    %s (%s)\r\n\r\n", at(h.LastSuccessAt), h.LastError, at(h.LastErrorAt))
	}
	fmt.Fprintf(&b, "Destination:   %s\r\nStream:        %s\r\n", st.Destination.Kind, strings.TrimRight(m.cfg.PublicURL, "/")+"/api/streams/"+st.ID)
	return subject, b.String()
}

// NotifyStream tells each of st's Notify addresses that st has failed
// for stream.AlertAfter (failing) or recovered. It tries every
// address and returns the first error.
func (m *Mailer) NotifyStream(ctx context.Context, st stream.Stream, failing bool) error {
	subject, body := m.StreamMessage(st, failing)
	var errs []error
	for i, addr := range st.Notify {
		to, err := mail.ParseAddress(addr)
		if err != nil {
			errs = append(errs, audit.Errorf(audit.EINVALID, "smtp: stream %s: no usable e-mail address %q", st.ID, addr))
			continue
		}
		var msg strings.Builder
		fmt.Fprintf(&msg, "From: %s\r\nTo: %s\r\nSubject: %s\r\n", m.from.String(), to.String(), subject)
		fmt.Fprintf(&msg, "Date: %s\r\nMessage-ID: <%s@auditlog>\r\n", time.Now().UTC().Format(time.RFC1123Z), uuid.NewString())
		fmt.Fprintf(&msg, "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n")
		fmt.Fprintf(&msg, "X-Auditlog-Stream: %s\r\n\r\n%s", st.ID, body)
		if m.outbox != "" {
			err = m.file(fmt.Sprintf("stream-%s-%d", st.ID, i), []byte(msg.String()))
		} else {
			err = m.send(ctx, to.Address, []byte(msg.String()))
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
