package stream_test

import (
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/stream"
)

// probe is a kind of destination of these tests only (the real kinds
// register from their packages under streaming/, which the domain does
// not import): an https endpoint with headers, a secret token and a
// signing key the service makes.
type probe struct {
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	Token   string            `json:"token,omitempty"`
	Key     string            `json:"key,omitempty"`
	Size    int               `json:"size,omitempty"`
}

const probeKind = "probe"

func init() {
	stream.Register(func() stream.Settings { return new(probe) })
}

func (*probe) Kind() string { return probeKind }

func (p *probe) Check(fe *audit.FieldErrors, rules stream.Rules) {
	stream.CheckEndpoint(fe, p.URL, rules)
	stream.CheckIntake(fe, p.URL, rules, "Probe", probeKind, []string{"example.com"})
	stream.CheckHeaders(fe, p.Headers)
}

func (p *probe) Redacted() stream.Settings {
	r := *p
	r.Token, r.Key = stream.Mask(p.Token), stream.Mask(p.Key)
	if p.Headers != nil {
		r.Headers = map[string]string{}
		for k, v := range p.Headers {
			r.Headers[k] = stream.Mask(v)
		}
	}
	return &r
}

func (p *probe) Keep(old stream.Settings) {
	was := old.(*probe)
	p.Token, p.Key = stream.Kept(p.Token, was.Token), stream.Kept(p.Key, was.Key)
}

func (p *probe) Endpoint() string         { return p.URL }
func (p *probe) SigningKey() string       { return p.Key }
func (p *probe) SetSigningKey(key string) { p.Key = key }
func probeOf(d stream.Destination) *probe { return d.Settings.(*probe) }
func newProbe(p probe) stream.Destination { return stream.NewDestination(&p) }

var fixedNow = time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
