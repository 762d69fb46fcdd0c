// Package mailtest runs a real SMTP server (emersion/go-smtp) on the
// loopback for tests: STARTTLS with a certificate made for the test, and
// PLAIN authentication. It keeps every message it accepts.
package mailtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"net"
	"net/mail"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Message is one accepted e-mail.
type Message struct {
	From   string
	To     []string
	TLS    bool   // sent after STARTTLS
	User   string // the authenticated user
	Header mail.Header
	Body   string
}

// Server is the running SMTP server.
type Server struct {
	Host, User, Password string
	Port                 int
	// CAFile verifies the server's certificate.
	CAFile string

	mu   sync.Mutex
	msgs []Message
	got  chan struct{}
}

// Start starts a server that requires STARTTLS before AUTH and AUTH
// before MAIL; it stops when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	cert, caFile := selfSigned(t)
	s := &Server{Host: "127.0.0.1", User: "mailer", Password: "s3cret-" + strconv.Itoa(os.Getpid()), CAFile: caFile, got: make(chan struct{}, 100)}
	srv := smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) { return &session{s: s, c: c}, nil }))
	srv.Domain = "localhost"
	srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.ReadTimeout, srv.WriteTimeout = 30*time.Second, 30*time.Second
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.Port = ln.Addr().(*net.TCPAddr).Port
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return s
}

// Messages returns what was received so far.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.msgs...)
}

// Wait returns the first message for which match is true, waiting up to
// timeout.
func (s *Server) Wait(t testing.TB, timeout time.Duration, match func(Message) bool) Message {
	t.Helper()
	deadline := time.After(timeout)
	for {
		for _, m := range s.Messages() {
			if match(m) {
				return m
			}
		}
		select {
		case <-s.got:
		case <-deadline:
			t.Fatalf("no matching e-mail within %s; got %d others", timeout, len(s.Messages()))
		}
	}
}

type session struct {
	s    *Server
	c    *smtp.Conn
	user string
	msg  Message
}

func (ss *session) AuthMechanisms() []string { return []string{sasl.Plain} }

func (ss *session) Auth(mech string) (sasl.Server, error) {
	if _, isTLS := ss.c.TLSConnectionState(); !isTLS {
		return nil, errors.New("STARTTLS first")
	}
	return sasl.NewPlainServer(func(identity, username, password string) error {
		if username != ss.s.User || password != ss.s.Password {
			return errors.New("bad credentials")
		}
		ss.user = username
		return nil
	}), nil
}

func (ss *session) Mail(from string, _ *smtp.MailOptions) error {
	if ss.user == "" {
		return &smtp.SMTPError{Code: 530, Message: "authentication required"}
	}
	ss.msg = Message{From: from}
	return nil
}

func (ss *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	ss.msg.To = append(ss.msg.To, to)
	return nil
}

func (ss *session) Data(r io.Reader) error {
	m, err := mail.ReadMessage(r)
	if err != nil {
		return err
	}
	body, err := io.ReadAll(m.Body)
	if err != nil {
		return err
	}
	_, ss.msg.TLS = ss.c.TLSConnectionState()
	ss.msg.User, ss.msg.Header, ss.msg.Body = ss.user, m.Header, string(body)
	ss.s.mu.Lock()
	ss.s.msgs = append(ss.s.msgs, ss.msg)
	ss.s.mu.Unlock()
	select {
	case ss.s.got <- struct{}{}:
	default:
	}
	return nil
}

func (ss *session) Reset()        { ss.msg = Message{} }
func (ss *session) Logout() error { return nil }

// selfSigned makes a certificate for 127.0.0.1 and writes it as the CA
// file.
func selfSigned(t testing.TB) (tls.Certificate, string) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: "mailtest"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA: true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(t.TempDir(), "smtp-ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, caFile
}
