package stream

import (
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
// A destination that signs with a key the service makes (KeyMaker)
// and has none gets one made by secret. Errors: EINVALID
// naming each field (Normalize).
func NewStream(tenantID string, c Config, creator string, rules Rules, secret func() string, now time.Time) (Stream, error) {
	s := Stream{ID: uuid.NewString(), TenantID: tenantID, State: Active, CreatedAt: now, UpdatedAt: now}
	if len(c.Notify) == 0 && creator != "" {
		c.Notify = []string{creator}
	}
	s.apply(c)
	if k, ok := s.Destination.Settings.(KeyMaker); ok && k.SigningKey() == "" {
		k.SetSigningKey(secret())
	}
	return s, s.Normalize(rules)
}

// Reconfigure replaces s's configuration by c. A secret given as
// MaskedSecret (as the API shows it) keeps the stored one, so that a
// client sends back what it read. The state, cursor and health stay.
// Errors: EINVALID naming each field; s is then unchanged.
func (s *Stream) Reconfigure(c Config, rules Rules, now time.Time) error {
	if c.Destination.Settings != nil && s.Destination.Settings != nil && c.Destination.Kind == s.Destination.Kind {
		c.Destination.Settings.Keep(s.Destination.Settings)
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
