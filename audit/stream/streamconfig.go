package stream

import (
	"maps"
	"time"

	"github.com/google/uuid"
)

// Config is what a tenant admin sets of a stream: everything but
// its state, cursor and health, which deliveries and actions change.
type Config struct {
	Name        string            `json:"name"`
	Destination Destination       `json:"destination"`
	Format      string            `json:"format,omitempty"`
	Filter      string            `json:"filter,omitempty"`
	Mask        map[string]string `json:"mask,omitempty"`
	Notify      []string          `json:"notify,omitempty"`
}

// NewStream is a tenant's new stream of c, active from the log's start
// (every event inside retention is delivered, then each new one), its
// alerts to c.Notify or else to the creator's address (when it has one).
// A webhook without a secret gets one made by secret. Errors: EINVALID
// naming each field (Normalize).
func NewStream(tenantID string, c Config, creator string, rules Rules, secret func() string, now time.Time) (Stream, error) {
	s := Stream{ID: uuid.NewString(), TenantID: tenantID, State: Active, CreatedAt: now, UpdatedAt: now}
	if len(c.Notify) == 0 && creator != "" {
		c.Notify = []string{creator}
	}
	s.apply(c)
	if s.Destination.Kind == Webhook && s.Destination.Secret == "" {
		s.Destination.Secret = secret()
	}
	return s, s.Normalize(rules)
}

// Reconfigure replaces s's configuration by c. A secret given as
// MaskedSecret (as the API shows it) keeps the stored one, so that a
// client sends back what it read. The state, cursor and health stay.
// Errors: EINVALID naming each field; s is then unchanged.
func (s *Stream) Reconfigure(c Config, rules Rules, now time.Time) error {
	old := s.Destination
	d := &c.Destination
	keep := func(v *string, was string) {
		if *v == MaskedSecret {
			*v = was
		}
	}
	keep(&d.Secret, old.Secret)
	keep(&d.Token, old.Token)
	if d.Headers != nil {
		h := maps.Clone(d.Headers)
		for k := range h {
			v := h[k]
			keep(&v, old.Headers[k])
			h[k] = v
		}
		d.Headers = h
	}
	if d.Kind == Webhook && d.Secret == "" && old.Kind == Webhook {
		d.Secret = old.Secret
	}
	next := *s
	next.apply(c)
	if err := next.Normalize(rules); err != nil {
		return err
	}
	next.UpdatedAt = now
	*s = next
	return nil
}

func (s *Stream) apply(c Config) {
	s.Name, s.Destination, s.Format, s.Filter, s.Mask, s.Notify = c.Name, c.Destination, c.Format, c.Filter, c.Mask, c.Notify
}

// Config is s's configuration, secrets masked (as the API shows it).
func (s Stream) Config() Config {
	r := s.Redacted()
	return Config{Name: r.Name, Destination: r.Destination, Format: r.Format, Filter: r.Filter, Mask: r.Mask, Notify: r.Notify}
}
