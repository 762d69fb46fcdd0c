// Package gen generates realistic contact-center audit events,
// deterministically from a seed: tenants spread over the three plans with
// a skewed size distribution, every occurrence of the catalog in
// realistic proportions (about 3% failed logins, 0.5% operator-team
// accesses with reasons), before/after state for sensitive changes, and
// real-looking user agents and IPs. The demo seed, the load generator
// (`auditlog gen`), the tests and the benchmarks all use it.
package gen

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/google/uuid"

	"github.com/auditlog/auditlog/audit"
)

// Tenant is a generated tenant.
type Tenant struct {
	ID     string
	Name   string
	Plan   audit.Plan
	Weight float64 // share of the events
	users  []user
	pools  map[string]*pool // with Config.Versions: see version
}

type user struct {
	id, email, ip, ua string
	role              string
}

// Config shapes a generation run.
type Config struct {
	Seed    uint64
	Tenants int
	// Start and End bound the event timestamps; events are spread over the
	// interval in increasing order.
	Start, End time.Time
	// Skew is the Zipf exponent of tenant sizes (1.1: a few big tenants,
	// many small ones). 0 spreads events evenly.
	Skew float64
	// WithIDs sets event ids; without them the service derives them.
	WithIDs bool
	// FirstTenantID, when set, is the id of the first (biggest) tenant,
	// e.g. the demo tenant of `make demo`.
	FirstTenantID string
	// Versions, when above 0, is how many resources of each versioned type
	// (IVR, recording policy, queue) a tenant's updates change, one version
	// after the other (see version); 0: each update its own resource.
	Versions int
}

// Generator yields events. It is not safe for concurrent use.
type Generator struct {
	cfg     Config
	rng     *rand.Rand
	tenants []Tenant
	cum     []float64
	n       int
	total   int
}

// New returns a generator of total events.
func New(cfg Config, total int) *Generator {
	if cfg.Tenants <= 0 {
		cfg.Tenants = 10
	}
	if cfg.End.IsZero() {
		cfg.End = time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	}
	if cfg.Start.IsZero() {
		cfg.Start = cfg.End.Add(-30 * 24 * time.Hour)
	}
	g := &Generator{cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)), total: max(total, 1)}
	var sum float64
	for i := 0; i < cfg.Tenants; i++ {
		w := 1.0
		if cfg.Skew > 0 {
			w = 1 / math.Pow(float64(i+1), cfg.Skew)
		}
		t := Tenant{ID: g.uuid(), Name: companies[i%len(companies)], Plan: audit.Plans[i%3], Weight: w}
		if i == 0 && cfg.FirstTenantID != "" {
			t.ID = cfg.FirstTenantID
		}
		nUsers := 3 + g.rng.IntN(20)
		for u := 0; u < nUsers; u++ {
			first := firstNames[g.rng.IntN(len(firstNames))]
			role := audit.RoleAdmin
			if u%4 == 1 {
				role = "supervisor"
			}
			t.users = append(t.users, user{
				id: g.uuid(), email: fmt.Sprintf("%s.%d@%s.example", first, u, slug(t.Name)), role: role,
				ip: g.ip(), ua: userAgents[g.rng.IntN(len(userAgents))],
			})
		}
		sum += w
		g.tenants = append(g.tenants, t)
	}
	for i := range g.tenants {
		g.tenants[i].Weight /= sum
		prev := 0.0
		if i > 0 {
			prev = g.cum[i-1]
		}
		g.cum = append(g.cum, prev+g.tenants[i].Weight)
	}
	return g
}

// Tenants returns the generated tenants, biggest first.
func (g *Generator) Tenants() []Tenant { return g.tenants }

// uuid returns a random-looking UUID drawn from the generator's stream.
func (g *Generator) uuid() string {
	var b [16]byte
	for i := range b {
		b[i] = byte(g.rng.UintN(256))
	}
	b[6] = 0x40 | b[6]&0x0f
	b[8] = 0x80 | b[8]&0x3f
	return uuid.UUID(b).String()
}

func (g *Generator) ip() string {
	if g.rng.IntN(10) == 0 {
		return fmt.Sprintf("2001:db8:%x:%x::%x", g.rng.IntN(65536), g.rng.IntN(65536), g.rng.IntN(65536))
	}
	return fmt.Sprintf("%d.%d.%d.%d", []int{203, 198, 192, 100}[g.rng.IntN(4)], g.rng.IntN(256), g.rng.IntN(256), 1+g.rng.IntN(254))
}

func (g *Generator) tenant() *Tenant {
	x := g.rng.Float64()
	for i, c := range g.cum {
		if x < c {
			return &g.tenants[i]
		}
	}
	return &g.tenants[len(g.tenants)-1]
}

// Next returns the next event. Timestamps increase through [Start, End)
// over the first total events, and go on past End after that.
func (g *Generator) Next() audit.Event {
	t := g.tenant()
	span := g.cfg.End.Sub(g.cfg.Start)
	ts := g.cfg.Start.Add(time.Duration(float64(span) * float64(g.n) / float64(g.total)))
	g.n++
	return g.event(t, audit.NewTimestamp(ts))
}

// NextFor returns the next event of a given tenant.
func (g *Generator) NextFor(t *Tenant, ts time.Time) audit.Event {
	g.n++
	return g.event(t, audit.NewTimestamp(ts))
}

func (g *Generator) event(t *Tenant, ts audit.Timestamp) audit.Event {
	u := t.users[g.rng.IntN(len(t.users))]
	e := audit.Event{
		Timestamp: ts, TenantID: t.ID,
		Actor:     audit.Actor{ID: u.id, Email: u.email, Role: u.role, IP: u.ip, UserAgent: u.ua},
		RequestID: fmt.Sprintf("req_%08x", g.rng.Uint32()),
	}
	// Occurrence mix, in per-mille.
	x := g.rng.IntN(1000)
	var c audit.CatalogEntry
	switch {
	case x < 5: // 0.5% operator-team access
		c = g.pick(nil)
		e.Actor = audit.Actor{ID: g.uuid(), Email: fmt.Sprintf("%s@support.platform.example", firstNames[g.rng.IntN(len(firstNames))]),
			Role: audit.RoleSuperadmin, IP: "10.20." + fmt.Sprint(g.rng.IntN(256)) + "." + fmt.Sprint(1+g.rng.IntN(254)), UserAgent: userAgents[0]}
		e.Reason = reasons[g.rng.IntN(len(reasons))]
	case x < 35: // 3% failed logins
		c = g.find("Failed login attempt")
	case x < 300: // logins and logouts
		c = g.find([]string{"Login", "Login", "Login", "Logout", "Session forced"}[g.rng.IntN(5)])
	case x < 520: // sensitive access
		c = g.find([]string{"Recording downloaded", "Recording downloaded", "Transcript read", "CSV exported"}[g.rng.IntN(4)])
	case x < 580:
		c = g.find([]string{"MFA configured", "Password changed"}[g.rng.IntN(2)])
	case x < 680:
		c = g.find([]string{"CRM OAuth connection", "Transcript push", "Webhook sent", "Webhook sent"}[g.rng.IntN(4)])
	default:
		c = g.pick(func(c audit.CatalogEntry) bool { return c.Category == audit.CategoryConfiguration })
	}
	e.Action, e.Resource = c.Action, audit.Resource{Type: c.ResourceType, ID: g.uuid()}
	e.Outcome = c.Outcome
	g.details(&e, c)
	g.version(&e, t)
	e.Normalize()
	if g.cfg.WithIDs {
		e.ID = audit.DeriveID(e.Timestamp, []byte(fmt.Sprintf("gen:%d:%d", g.cfg.Seed, g.n)))
	}
	return e
}

func (g *Generator) find(occurrence string) audit.CatalogEntry {
	for _, c := range audit.Catalog {
		if c.Occurrence == occurrence {
			return c
		}
	}
	panic("gen: no catalog entry " + occurrence)
}

func (g *Generator) pick(keep func(audit.CatalogEntry) bool) audit.CatalogEntry {
	for {
		c := audit.Catalog[g.rng.IntN(len(audit.Catalog))]
		if keep == nil || keep(c) {
			return c
		}
	}
}

func raw(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// details fills diff and before/after the way the platform does.
func (g *Generator) details(e *audit.Event, c audit.CatalogEntry) {
	switch c.ResourceType {
	case audit.ResourceQueue:
		from, to := 30+g.rng.IntN(60), 30+g.rng.IntN(60)
		name := queueNames[g.rng.IntN(len(queueNames))]
		switch e.Action {
		case audit.ActionCreate:
			e.Diff = map[string]audit.Change{"name": {From: raw(nil), To: raw(name)}, "maxWaitSeconds": {From: raw(nil), To: raw(to * 10)}}
			return
		case audit.ActionDelete:
			e.Diff = map[string]audit.Change{"name": {From: raw(name), To: raw(nil)}}
			return
		}
		e.Diff = map[string]audit.Change{
			"maxWaitSeconds": {From: raw(from * 10), To: raw(to * 10)},
			"overflowQueue":  {From: raw(nil), To: raw(queueNames[g.rng.IntN(len(queueNames))])},
		}
	case audit.ResourceAgent:
		name := firstNames[g.rng.IntN(len(firstNames))]
		if e.Action == audit.ActionCreate {
			e.Diff = map[string]audit.Change{"name": {From: raw(nil), To: raw(name)}, "skills": {From: raw(nil), To: raw([]string{"sales", "billing"})}}
		} else {
			e.Diff = map[string]audit.Change{"name": {From: raw(name), To: raw(nil)}}
		}
	case audit.ResourceIVR:
		v := 1 + g.rng.IntN(40)
		before := map[string]any{"version": v, "greeting": "Welcome to support", "menu": []string{"1:sales", "2:support"}, "afterHours": "voicemail"}
		after := map[string]any{"version": v + 1, "greeting": "Welcome! Calls may be recorded", "menu": []string{"1:sales", "2:support", "3:billing"}, "afterHours": "voicemail"}
		e.Before, e.After = raw(before), raw(after)
		e.Diff = map[string]audit.Change{"version": {From: raw(v), To: raw(v + 1)}, "greeting": {From: raw(before["greeting"]), To: raw(after["greeting"])}, "menu": {From: raw(before["menu"]), To: raw(after["menu"])}}
	case audit.ResourceRecordingPolicy:
		from, to := []int{30, 90, 180}[g.rng.IntN(3)], []int{30, 90, 365}[g.rng.IntN(3)]
		e.Before = raw(map[string]any{"enabled": true, "retentionDays": from, "pauseOnPayment": false})
		e.After = raw(map[string]any{"enabled": true, "retentionDays": to, "pauseOnPayment": true})
		e.Diff = map[string]audit.Change{"pauseOnPayment": {From: raw(false), To: raw(true)}}
		if from != to { // the diff lists what changed, as the service checks
			e.Diff["retentionDays"] = audit.Change{From: raw(from), To: raw(to)}
		}
	case audit.ResourceUserRole:
		e.Before, e.After = raw(map[string]any{"role": "agent"}), raw(map[string]any{"role": "supervisor"})
		e.Diff = map[string]audit.Change{"role": {From: raw("agent"), To: raw("supervisor")}}
	case audit.ResourceDID:
		num := fmt.Sprintf("+1555%07d", g.rng.IntN(10000000))
		if e.Action == audit.ActionCreate {
			e.Diff = map[string]audit.Change{"number": {From: raw(nil), To: raw(num)}}
		} else {
			e.Diff = map[string]audit.Change{"number": {From: raw(num), To: raw(nil)}}
		}
	case audit.ResourceUserMFA:
		e.Diff = map[string]audit.Change{"mfaMethod": {From: raw(nil), To: raw("totp")}}
	case audit.ResourceIntegration, audit.ResourceCRMConnection:
		// The callback URL holds words only a tokenizer that splits host
		// names finds (hooks, relay): the search conformance cases use it.
		provider := []string{"salesforce", "hubspot", "zendesk"}[g.rng.IntN(3)]
		e.Diff = map[string]audit.Change{"provider": {From: raw(nil), To: raw(provider)},
			"callbackUrl": {From: raw(nil), To: raw("https://hooks." + provider + "-relay.example/v1/inbound")}}
	}
}

func slug(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z':
			out = append(out, c+32)
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			out = append(out, c)
		case c == ' ':
			out = append(out, '-')
		}
	}
	return string(out)
}

var (
	companies  = []string{"Acme Contact", "Globex Support", "Initech Care", "Umbrella Health", "Hooli Sales", "Stark Service", "Wayne Telecom", "Wonka Retail", "Tyrell Travel", "Soylent Foods", "Cyberdyne Banking", "Oscorp Energy"}
	firstNames = []string{"ana", "bruno", "carla", "diego", "elena", "farid", "grace", "hugo", "ines", "jonas", "kiko", "lucia", "mateo", "nadia", "omar", "paula", "quinn", "rosa", "sven", "tomas"}
	queueNames = []string{"sales", "support", "billing", "vip", "overflow"}
	reasons    = []string{"Ticket CS-4821: customer cannot publish IVR", "Incident INC-207: recording playback errors", "Ticket CS-5120: onboarding assistance", "Security review requested by tenant admin"}
	userAgents = []string{
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36",
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/605.1.15",
		"Mozilla/5.0 (X11; Linux x86_64; rv:131.0) Gecko/20100101 Firefox/131.0",
		"ContactCenterDesktop/4.12.1 (Windows 11; x64)",
		"okhttp/4.12.0",
		"=HYPERLINK(\"http://evil.example\",\"click\")",
	}
)
