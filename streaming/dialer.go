package streaming

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"

	"github.com/auditlog/auditlog/audit/stream"
)

// Dialer is the dialer of every stream connection. Unless allowPrivate
// (development, tests), it refuses an address stream.PrivateAddr names,
// checked on the address actually dialled, after name resolution: a
// public name that resolves, or later rebinds, to 127.0.0.1 or
// 169.254.169.254 is refused too, so that a tenant's stream cannot make
// the service call into its own network.
func Dialer(allowPrivate bool) *net.Dialer {
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	if !allowPrivate {
		d.Control = func(_, address string, _ syscall.RawConn) error {
			host, _, err := net.SplitHostPort(address)
			if err != nil {
				return err
			}
			a, err := netip.ParseAddr(host)
			if err != nil || stream.PrivateAddr(a) {
				return fmt.Errorf("stream: %s is a loopback, private or link-local address: a stream delivers only to public endpoints (AUDITLOG_STREAM_ALLOW_PRIVATE=true allows others, for development)", host)
			}
			return nil
		}
	}
	return d
}

// HTTPClient is the HTTP client of every stream destination: its
// connections reach public addresses only, unless allowPrivate (Dialer),
// through no proxy (a proxy would dial the destination where the dialer
// cannot check it), following no redirect (a redirect would lead the
// batch, and its credentials, elsewhere), with timeout per request.
func HTTPClient(allowPrivate bool, timeout time.Duration) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = Dialer(allowPrivate).DialContext
	tr.Proxy = nil
	return &http.Client{Transport: tr, Timeout: timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}
