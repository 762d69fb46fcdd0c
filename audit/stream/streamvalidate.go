package stream

import (
	"fmt"
	"github.com/auditlog/auditlog/audit/search"
	"net/mail"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/auditlog/auditlog/audit"
)

// Bounds of a stream's configuration.
const (
	MaxStreamName    = 80 // characters
	MaxStreamURL     = 2048
	MaxStreamHeaders = 20
	MaxHeaderValue   = 1024
	MinStreamSecret  = 32 // bytes of a webhook's signing key
	MaxStreamSecret  = 256
	MaxStreamNotify  = 10 // e-mail addresses
)

// Rules are the deployment's rules a stream's configuration is held
// to.
type Rules struct {
	// AllowPrivate admits destinations on loopback, private and link-local
	// addresses (a development deployment, a test); production refuses
	// them, so that a tenant cannot make the service call into its own
	// network.
	AllowPrivate bool
	// Intake are, by kind, the domains a vendor destination's host must
	// be under where the deployment replaces the vendor's own (a
	// sovereign cloud's): a tenant's events go to the vendor, not to any
	// https host dressed as it (CheckIntake).
	Intake map[string][]string
	// Off are the kinds this deployment cannot deliver to, each with why
	// (S3 without an S3 server for streams).
	Off map[string]string
}

// kinds are the registered kinds the deployment delivers to.
func (r Rules) kinds() []string {
	return slices.DeleteFunc(Kinds(), func(k string) bool { _, off := r.Off[k]; return off })
}

// CheckIntake holds a vendor destination's host (of raw, its URL) to
// the deployment's intake domains for kind (Rules.Intake), else to the
// vendor's own, defaults. A private host that AllowPrivate admits (a
// test receiver) is not held to them.
func CheckIntake(fe *audit.FieldErrors, raw string, rules Rules, vendor, kind string, defaults []string) {
	domains := rules.Intake[kind]
	if domains == nil {
		domains = defaults
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return // CheckEndpoint names it
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if rules.AllowPrivate && PrivateHost(host) {
		return
	}
	for _, d := range domains {
		if host == d || strings.HasSuffix(host, "."+d) {
			return
		}
	}
	fe.Add("destination.url", "want %s's intake: a host under %s", vendor, strings.Join(domains, ", "))
}

// reservedHeaders are the headers a webhook's own headers cannot set: the
// service writes them (the body's, the signature's) or HTTP does.
var reservedHeaders = []string{"content-type", "content-length", "content-encoding", "transfer-encoding", "host", "connection",
	"x-auditlog-signature", "x-auditlog-timestamp"}

var headerName = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$")

// Normalize trims s's name, defaults its format to FormatEvent, and
// checks every rule of its configuration: a name of 1 to MaxStreamName
// printable characters; a registered kind of destination the deployment
// delivers to, with no member its settings do not have, and what its
// settings' own Check asks; a known format; a filter in the search language; masking of known personal
// fields only. Errors: EINVALID naming each field, with its JSON path
// ("destination.url").
func (s *Stream) Normalize(rules Rules) error {
	var fe audit.FieldErrors
	s.Name = strings.TrimSpace(s.Name)
	if n := utf8.RuneCountInString(s.Name); n == 0 || n > MaxStreamName || strings.ContainsFunc(s.Name, unicode.IsControl) {
		fe.Add("name", "want 1 to %d printable characters", MaxStreamName)
	}
	s.Destination.check(&fe, rules)
	if s.Format == "" {
		s.Format = FormatEvent
	}
	if !slices.Contains(Formats, s.Format) {
		fe.Add("format", "want one of %s", strings.Join(Formats, ", "))
	}
	if _, _, err := search.Parse(s.Filter); err != nil {
		fe.Add("filter", "%s", audit.ErrorMessage(err))
	}
	for field, mode := range s.Mask {
		if !slices.Contains(MaskFields, field) {
			fe.Add("mask."+field, "not a field a stream masks: want one of %s", strings.Join(MaskFields, ", "))
		} else if mode != MaskHash && mode != MaskDrop {
			fe.Add("mask."+field, "want %s or %s", MaskHash, MaskDrop)
		}
	}
	checkNotify(&fe, s.Notify)
	return fe.Sorted().Err("invalid stream")
}

// checkNotify holds a stream's alert addresses to at most
// MaxStreamNotify plain e-mail addresses.
func checkNotify(fe *audit.FieldErrors, to []string) {
	if len(to) > MaxStreamNotify {
		fe.Add("notify", "at most %d addresses", MaxStreamNotify)
		return
	}
	for i, a := range to {
		if p, err := mail.ParseAddress(a); err != nil || p.Address != a || p.Name != "" || len(a) > 254 {
			fe.Add(fmt.Sprintf("notify[%d]", i), "want an e-mail address like secops@example.com")
		}
	}
}

// CheckEndpoint holds a destination URL to https, a host, no credentials
// in the URL, and (unless rules allow them) no loopback, private,
// link-local or unspecified address nor a name of the local machine. A
// name that resolves to such an address is refused when the stream
// connects, not here: DNS answers change.
func CheckEndpoint(fe *audit.FieldErrors, raw string, rules Rules) {
	const field = "destination.url"
	u, err := url.Parse(raw)
	switch {
	case raw == "":
		fe.Add(field, "is required")
	case len(raw) > MaxStreamURL:
		fe.Add(field, "must be at most %d bytes", MaxStreamURL)
	case err != nil || u.Host == "" || u.Opaque != "":
		fe.Add(field, "want an absolute URL like https://siem.example.com/collector")
	case u.Scheme != "https":
		fe.Add(field, "must be an https:// URL: events leave the service only encrypted")
	case u.User != nil:
		fe.Add(field, "must not hold credentials: put them in the token, the secret or a header, which are masked")
	case u.Fragment != "":
		fe.Add(field, "must not have a #fragment")
	case !rules.AllowPrivate && PrivateHost(u.Hostname()):
		fe.Add(field, "names a loopback, private or link-local address: a stream delivers only to public endpoints (for development, the operator allows others with AUDITLOG_STREAM_ALLOW_PRIVATE=true)")
	}
}

// PrivateHost reports whether host (a name or an IP literal) is the local
// machine or an address no public endpoint has: loopback, private (RFC
// 1918, fc00::/7), link-local, unspecified, multicast, or CGNAT
// (100.64.0.0/10). The stream's dialer applies the same test to every
// address a name resolves to.
func PrivateHost(host string) bool {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if h == "localhost" || strings.HasSuffix(h, ".localhost") || strings.HasSuffix(h, ".local") || strings.HasSuffix(h, ".internal") {
		return true
	}
	a, err := netip.ParseAddr(strings.Trim(h, "[]"))
	if err != nil {
		return false
	}
	return PrivateAddr(a)
}

// cgnat is the shared address space of carrier-grade NAT (RFC 6598).
var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// PrivateAddr reports whether a is an address no public endpoint has.
func PrivateAddr(a netip.Addr) bool {
	a = a.Unmap()
	return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() || a.IsInterfaceLocalMulticast() ||
		a.IsMulticast() || a.IsUnspecified() || cgnat.Contains(a)
}

// CheckHeaders holds a webhook's headers to token names the service does
// not write itself and values of printable characters.
func CheckHeaders(fe *audit.FieldErrors, h map[string]string) {
	if len(h) > MaxStreamHeaders {
		fe.Add("destination.headers", "at most %d headers", MaxStreamHeaders)
		return
	}
	for name, value := range h {
		field := "destination.headers." + name
		switch {
		case !headerName.MatchString(name):
			fe.Add("destination.headers", "%q is no header name: want 1 to 64 of A-Z a-z 0-9 and !#$%%&'*+.^_`|~-", name)
		case slices.Contains(reservedHeaders, strings.ToLower(name)):
			fe.Add(field, "is written by the service: want another header")
		case value == "" || len(value) > MaxHeaderValue || strings.ContainsFunc(value, func(r rune) bool { return unicode.IsControl(r) && r != '\t' }):
			fe.Add(field, "want 1 to %d bytes of printable characters", MaxHeaderValue)
		}
	}
}

// MaskedSecret stands for a secret value wherever a stream is shown.
const MaskedSecret = "****"

// Redacted is s as it is shown (API, panel, logs, the tenant's log): its
// destination's secrets masked (Settings.Redacted).
func (s Stream) Redacted() Stream {
	s.Destination = s.Destination.redacted()
	return s
}
