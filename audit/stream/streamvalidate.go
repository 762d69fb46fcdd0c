package stream

import (
	"fmt"
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
	// S3 says the deployment has an S3 server for streams
	// (AUDITLOG_S3_ENDPOINT): without one an s3 stream is refused.
	S3 bool
	// DatadogDomains and SentinelDomains are the intake domains a
	// Datadog or Sentinel destination's host must be under (nil: the
	// defaults, DatadogIntakeDomains and SentinelIntakeDomains; a
	// sovereign cloud's are configured): a tenant's events go to the
	// vendor, not to any https host dressed as it. A private host that
	// AllowPrivate admits (a test receiver) is not held to them.
	DatadogDomains, SentinelDomains []string
}

// DatadogIntakeDomains are Datadog's sites (US1, US3, US5, AP1 and AP2
// are under datadoghq.com; EU; US1-FED).
var DatadogIntakeDomains = []string{"datadoghq.com", "datadoghq.eu", "ddog-gov.com"}

// SentinelIntakeDomains are Azure Monitor's Logs Ingestion endpoints
// (data collection endpoints and rules) in Azure, Azure Government and
// Azure China.
var SentinelIntakeDomains = []string{"ingest.monitor.azure.com", "ingest.monitor.azure.us", "ingest.monitor.azure.cn"}

// checkIntake holds a vendor destination's host to its intake domains
// (configured, else the vendor's defaults).
func checkIntake(fe *audit.FieldErrors, raw string, rules Rules, vendor string, configured, defaults []string) {
	domains := configured
	if domains == nil {
		domains = defaults
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return // checkEndpoint names it
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

var (
	splunkIdx   = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,79}$`)
	datadogKey  = regexp.MustCompile(`^[0-9a-fA-F]{32}$`)
	dcrID       = regexp.MustCompile(`^dcr-[0-9a-f]{32}$`)
	azureStream = regexp.MustCompile(`^Custom-[A-Za-z0-9_]{1,100}$`)
	headerName  = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$")
)

// Normalize trims s's name, defaults its format to FormatEvent, and
// checks every rule of its configuration: a name of 1 to MaxStreamName
// printable characters; a known destination with what it needs (an
// https URL that is no private address unless rules allow one, for the
// webhook and Splunk; a bucket for S3) and nothing another destination
// uses; webhook headers the service does not write itself; a known
// format; a filter in the search language; masking of known personal
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
	if _, _, err := audit.ParseSearch(s.Filter); err != nil {
		fe.Add("filter", "%s", audit.ErrorMessage(err))
	}
	for field, mode := range s.Mask {
		if !slices.Contains(audit.StreamMaskFields, field) {
			fe.Add("mask."+field, "not a field a stream masks: want one of %s", strings.Join(audit.StreamMaskFields, ", "))
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

// streamFields are the destination fields each kind uses; any other set
// is refused as not used by the kind.
var streamFields = map[string][]string{
	Webhook:  {"url", "headers", "secret"},
	Splunk:   {"url", "token", "index"},
	S3:       {"bucket", "prefix"},
	Datadog:  {"url", "token"},
	Sentinel: {"url", "secret", "dcr", "streamName", "azureTenant", "clientId"},
}

// check adds the problems of d to fe.
func (d *Destination) check(fe *audit.FieldErrors, rules Rules) {
	uses, ok := streamFields[d.Kind]
	if !ok {
		fe.Add("destination.kind", "want one of %s", strings.Join(Kinds, ", "))
		return
	}
	set := map[string]bool{"url": d.URL != "", "headers": len(d.Headers) > 0, "secret": d.Secret != "", "token": d.Token != "",
		"index": d.Index != "", "bucket": d.Bucket != "", "prefix": d.Prefix != "", "dcr": d.DCR != "", "streamName": d.StreamName != "",
		"azureTenant": d.AzureTenant != "", "clientId": d.ClientID != ""}
	for f, isSet := range set {
		if isSet && !slices.Contains(uses, f) {
			fe.Add("destination."+f, "not used by %s streams", d.Kind)
		}
	}
	switch d.Kind {
	case Webhook:
		checkEndpoint(fe, d.URL, rules)
		checkHeaders(fe, d.Headers)
		if d.Secret != "" && (len(d.Secret) < MinStreamSecret || len(d.Secret) > MaxStreamSecret) {
			fe.Add("destination.secret", "want %d to %d bytes, or none for one the service makes", MinStreamSecret, MaxStreamSecret)
		}
	case Splunk:
		checkEndpoint(fe, d.URL, rules)
		if !audit.ValidUUID(d.Token) { // a HEC token is a GUID
			fe.Add("destination.token", "want the HTTP Event Collector token, a GUID like 12345678-9abc-def0-1234-56789abcdef0")
		}
		if d.Index != "" && !splunkIdx.MatchString(d.Index) {
			fe.Add("destination.index", "want a Splunk index name: 1 to 80 of a-z 0-9 _ -, starting with a letter or digit")
		}
	case Datadog:
		checkEndpoint(fe, d.URL, rules)
		checkIntake(fe, d.URL, rules, "Datadog", rules.DatadogDomains, DatadogIntakeDomains)
		if !datadogKey.MatchString(d.Token) {
			fe.Add("destination.token", "want the Datadog API key: 32 hexadecimal digits")
		}
	case Sentinel:
		d.checkSentinel(fe, rules)
	case S3:
		if !rules.S3 {
			fe.Add("destination.kind", "this deployment has no S3 server for streams (AUDITLOG_S3_ENDPOINT): want webhook, splunk_hec, datadog or sentinel")
		}
		if !audit.ValidBucket(d.Bucket) {
			fe.Add("destination.bucket", "%s", audit.BucketRule)
		}
		if d.Prefix != "" && !audit.ValidPrefix(d.Prefix) {
			fe.Add("destination.prefix", "%s", audit.PrefixRule)
		}
	}
}

// checkSentinel holds a Sentinel destination to its Azure forms: an https
// endpoint, a rule's immutable id, a Custom- stream, GUIDs for the Entra
// ID tenant and application, and a client secret.
func (d *Destination) checkSentinel(fe *audit.FieldErrors, rules Rules) {
	checkEndpoint(fe, d.URL, rules)
	checkIntake(fe, d.URL, rules, "Azure Monitor", rules.SentinelDomains, SentinelIntakeDomains)
	if !dcrID.MatchString(d.DCR) {
		fe.Add("destination.dcr", "want the data collection rule's immutable id, like dcr-0123456789abcdef0123456789abcdef")
	}
	if !azureStream.MatchString(d.StreamName) {
		fe.Add("destination.streamName", "want the rule's stream, Custom- and 1 to 100 of A-Z a-z 0-9 _")
	}
	if !audit.ValidUUID(d.AzureTenant) {
		fe.Add("destination.azureTenant", "want the Entra ID tenant id, a GUID")
	}
	if !audit.ValidUUID(d.ClientID) {
		fe.Add("destination.clientId", "want the application (client) id, a GUID")
	}
	if len(d.Secret) < MinStreamSecret || len(d.Secret) > MaxStreamSecret || !audit.CleanText(d.Secret) {
		fe.Add("destination.secret", "want the application's client secret, %d to %d bytes", MinStreamSecret, MaxStreamSecret)
	}
}

// checkEndpoint holds a destination URL to https, a host, no credentials
// in the URL, and (unless rules allow them) no loopback, private,
// link-local or unspecified address nor a name of the local machine. A
// name that resolves to such an address is refused when the stream
// connects, not here: DNS answers change.
func checkEndpoint(fe *audit.FieldErrors, raw string, rules Rules) {
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
		fe.Add(field, "names a loopback, private or link-local address: a stream delivers only to public endpoints")
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

// checkHeaders holds a webhook's headers to token names the service does
// not write itself and values of printable characters.
func checkHeaders(fe *audit.FieldErrors, h map[string]string) {
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

// Redacted is s as it is shown (API, panel, logs, the tenant's log): the
// webhook's secret and header values and the Splunk token masked.
func (s Stream) Redacted() Stream {
	d := s.Destination
	mask := func(v string) string {
		if v == "" {
			return ""
		}
		return MaskedSecret
	}
	d.Secret, d.Token = mask(d.Secret), mask(d.Token)
	if len(d.Headers) > 0 {
		h := make(map[string]string, len(d.Headers))
		for k, v := range d.Headers {
			h[k] = mask(v)
		}
		d.Headers = h
	}
	s.Destination = d
	return s
}

// String keeps a stream's secrets out of any %v.
func (d Destination) String() string {
	return fmt.Sprintf("%s %s%s", d.Kind, d.URL, d.Bucket)
}
