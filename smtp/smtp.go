// Package smtp e-mails the owner of an export job when it ends, through
// any SMTP server (net/smtp): STARTTLS, PLAIN authentication and the
// sender are configurable. Without a server, the same messages are written
// as .eml files into an outbox directory (NewOutbox).
package smtp

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"net"
	"net/mail"
	stdsmtp "net/smtp"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/auditlog/auditlog/audit/exportjob"

	"github.com/google/uuid"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/atomicfile"
)

// TLS modes of the connection.
const (
	// StartTLSRequired refuses to send without STARTTLS.
	StartTLSRequired = "required"
	// StartTLSOpportunistic upgrades when the server offers it.
	StartTLSOpportunistic = "opportunistic"
	// StartTLSOff never upgrades (a local relay).
	StartTLSOff = "off"
)

// Config is the SMTP section of the configuration.
type Config struct {
	Host     string
	Port     int
	Username string
	Password string
	// From is the sender, e.g. "Audit log <auditlog@example.com>".
	From string
	// StartTLS is required, opportunistic (default) or off.
	StartTLS string
	// CAFile, when set, is the PEM bundle that verifies the server's
	// certificate instead of the system roots.
	CAFile string
	// PublicURL is the base of the links in the e-mails, e.g.
	// https://audit.example.com.
	PublicURL string
	// Timeout bounds one delivery (default 30 s).
	Timeout time.Duration
}

// Mailer implements exportjob.Notifier.
type Mailer struct {
	cfg  Config
	from *mail.Address
	tls  *tls.Config
	// outbox, when set, is the directory the messages are written to
	// instead of being sent (NewOutbox).
	outbox string
	logger *slog.Logger
}

// NewOutbox returns a Mailer that writes each message, exactly as it would
// send it, as an .eml file into dir (created 0700; files 0600, since they
// carry addresses), and logs the file's path: the e-mails of a laptop or
// test deployment with no SMTP server. cfg.Host is not used. The files
// are never deleted by the service; one export makes one small file.
func NewOutbox(cfg Config, dir string, logger *slog.Logger) (*Mailer, error) {
	from, err := mail.ParseAddress(cfg.From)
	if err != nil {
		return nil, audit.Errorf(audit.EINVALID, "smtp: sender %q: %v", cfg.From, err)
	}
	if cfg.PublicURL == "" {
		return nil, audit.Errorf(audit.EINVALID, "smtp: no public URL for the links")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, audit.Wrap(audit.EINVALID, err, "smtp: outbox %s", dir)
	}
	cfg.PublicURL = strings.TrimRight(cfg.PublicURL, "/")
	return &Mailer{cfg: cfg, from: from, outbox: dir, logger: logger}, nil
}

// New checks the configuration.
func New(cfg Config) (*Mailer, error) {
	if cfg.Host == "" {
		return nil, audit.Errorf(audit.EINVALID, "smtp: no host")
	}
	if cfg.Port == 0 {
		cfg.Port = 587
	}
	if cfg.StartTLS == "" {
		cfg.StartTLS = StartTLSOpportunistic
	}
	switch cfg.StartTLS {
	case StartTLSRequired, StartTLSOpportunistic, StartTLSOff:
	default:
		return nil, audit.Errorf(audit.EINVALID, "smtp: STARTTLS mode %q: want required, opportunistic or off", cfg.StartTLS)
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 30 * time.Second
	}
	from, err := mail.ParseAddress(cfg.From)
	if err != nil {
		return nil, audit.Errorf(audit.EINVALID, "smtp: sender %q: %v", cfg.From, err)
	}
	if cfg.PublicURL == "" {
		return nil, audit.Errorf(audit.EINVALID, "smtp: no public URL for the links")
	}
	tc := &tls.Config{ServerName: cfg.Host, MinVersion: tls.VersionTLS12}
	if cfg.CAFile != "" {
		pem, err := os.ReadFile(cfg.CAFile)
		if err != nil {
			return nil, audit.Wrap(audit.EINVALID, err, "smtp: CA file")
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, audit.Errorf(audit.EINVALID, "smtp: no certificate in %s", cfg.CAFile)
		}
		tc.RootCAs = pool
	}
	cfg.PublicURL = strings.TrimRight(cfg.PublicURL, "/")
	return &Mailer{cfg: cfg, from: from, tls: tc}, nil
}

// Links are the URLs an e-mail gives for a job.
func Links(publicURL, jobID string) (status, file string) {
	status = strings.TrimRight(publicURL, "/") + "/api/audit-logs/exports/" + jobID
	return status, status + "/file"
}

// PanelLink is the admin panel's exports view under publicURL, where the
// owner signs in and downloads the file.
func PanelLink(publicURL string) string {
	return strings.TrimRight(publicURL, "/") + "/settings/audit/?view=exports"
}

// Message returns the subject and plain-text body of the notice of j.
func (m *Mailer) Message(j exportjob.Job) (subject, body string) {
	status, file := Links(m.cfg.PublicURL, j.ID)
	filters := j.Query
	if filters == "" {
		filters = "none (the whole log)"
	}
	var b strings.Builder
	if j.State == exportjob.Done {
		subject = fmt.Sprintf("Your audit log export is ready (%s rows)", thousands(j.RowsWritten))
		fmt.Fprintf(&b, "Your export of the audit log is ready.\r\n\r\n")
		fmt.Fprintf(&b, "Rows:     %s\r\nFilters:  %s\r\n\r\n", thousands(j.RowsWritten), filters)
		// The panel first: the API link needs a bearer token, which a
		// click from a mail reader does not send (issue 57: it was a 401).
		fmt.Fprintf(&b, "Open:     %s\r\n", PanelLink(m.cfg.PublicURL))
		fmt.Fprintf(&b, "          (Settings > Audit > Exports, signed in as %s: the file is yours alone)\r\n", j.Owner.Email)
		fmt.Fprintf(&b, "API:      %s\r\n", file)
		fmt.Fprintf(&b, "          (for a script, with a bearer token of yours)\r\n\r\n")
		if j.ExpiresAt != nil {
			fmt.Fprintf(&b, "The file is kept until %s, then deleted.\r\n", j.ExpiresAt.UTC().Format("2006-01-02 15:04 MST"))
		}
	} else {
		subject = "Your audit log export failed"
		fmt.Fprintf(&b, "Your export of the audit log could not be produced.\r\n\r\n")
		fmt.Fprintf(&b, "Reason:   %s\r\nFilters:  %s\r\n\r\n", j.Error, filters)
		fmt.Fprintf(&b, "You can ask for it again from Settings > Audit > Export.\r\n")
	}
	fmt.Fprintf(&b, "Status:   %s\r\nJob:      %s\r\n", status, j.ID)
	return subject, b.String()
}

func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// NotifyExport implements exportjob.Notifier.
func (m *Mailer) NotifyExport(ctx context.Context, j exportjob.Job) error {
	to, err := mail.ParseAddress(j.Owner.Email)
	if err != nil {
		return audit.Errorf(audit.EINVALID, "smtp: the job's owner has no usable e-mail address %q", j.Owner.Email)
	}
	subject, body := m.Message(j)
	var msg strings.Builder
	fmt.Fprintf(&msg, "From: %s\r\nTo: %s\r\nSubject: %s\r\n", m.from.String(), to.String(), subject)
	fmt.Fprintf(&msg, "Date: %s\r\nMessage-ID: <%s@auditlog>\r\n", time.Now().UTC().Format(time.RFC1123Z), uuid.NewString())
	fmt.Fprintf(&msg, "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n")
	fmt.Fprintf(&msg, "X-Auditlog-Export: %s\r\n\r\n%s", j.ID, body)
	if m.outbox != "" {
		return m.file(j.ID, []byte(msg.String()))
	}
	return m.send(ctx, to.Address, []byte(msg.String()))
}

// file writes msg into the outbox, whole or not at all (a temporary file
// renamed), named by time and job so that a listing is in sending order.
func (m *Mailer) file(jobID string, msg []byte) error {
	path := filepath.Join(m.outbox, time.Now().UTC().Format("20060102T150405.000Z")+"-"+jobID+".eml")
	if _, err := atomicfile.Write(path, bytes.NewReader(msg), int64(len(msg))); err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "smtp: outbox")
	}
	if m.logger != nil {
		m.logger.Info("export e-mail written to the outbox (no SMTP server configured)", "job", jobID, "path", path)
	}
	return nil
}

func (m *Mailer) send(ctx context.Context, to string, msg []byte) error {
	ctx, cancel := context.WithTimeout(ctx, m.cfg.Timeout)
	defer cancel()
	addr := net.JoinHostPort(m.cfg.Host, strconv.Itoa(m.cfg.Port))
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "smtp: connecting to %s", addr)
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	c, err := stdsmtp.NewClient(conn, m.cfg.Host)
	if err != nil {
		conn.Close()
		return audit.Wrap(audit.EUNAVAILABLE, err, "smtp: greeting of %s", addr)
	}
	defer c.Close()
	if err := c.Hello("auditlog"); err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "smtp: EHLO")
	}
	if ok, _ := c.Extension("STARTTLS"); ok && m.cfg.StartTLS != StartTLSOff {
		if err := c.StartTLS(m.tls); err != nil {
			return audit.Wrap(audit.EUNAVAILABLE, err, "smtp: STARTTLS")
		}
	} else if m.cfg.StartTLS == StartTLSRequired {
		return audit.Errorf(audit.EUNAVAILABLE, "smtp: %s does not offer STARTTLS, which is required", addr)
	}
	if m.cfg.Username != "" {
		if err := c.Auth(stdsmtp.PlainAuth("", m.cfg.Username, m.cfg.Password, m.cfg.Host)); err != nil {
			return audit.Wrap(audit.EUNAVAILABLE, err, "smtp: authentication")
		}
	}
	if err := c.Mail(m.from.Address); err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "smtp: MAIL FROM")
	}
	if err := c.Rcpt(to); err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "smtp: RCPT TO")
	}
	w, err := c.Data()
	if err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "smtp: DATA")
	}
	if _, err := w.Write(msg); err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "smtp: DATA")
	}
	if err := w.Close(); err != nil {
		return audit.Wrap(audit.EUNAVAILABLE, err, "smtp: DATA")
	}
	return c.Quit()
}
