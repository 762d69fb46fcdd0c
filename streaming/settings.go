package streaming

import (
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/audit/stream"
)

// SettingsOf are d's settings as the kind's own type T: what a
// destination's Send reads its endpoint and credentials from. Errors:
// EINVALID when d is not of T's kind.
func SettingsOf[T stream.Settings](d stream.Destination) (T, error) {
	s, ok := d.Settings.(T)
	if !ok {
		return s, audit.Errorf(audit.EINVALID, "a %s destination given to another kind's delivery", d.Kind)
	}
	return s, nil
}

// A Gatherer is a destination that writes one object per batch (S3):
// its stream waits, before each batch, until it has audit.MaxEventIDs
// leaves or has gathered for the runner's S3Every, and its batches take
// audit.MaxEventIDs leaves, so that objects and their manifests stay
// few.
type Gatherer interface {
	Gathers() bool
}

// gathers reports whether the destination of kind gathers leaves.
func (s *Streamer) gathers(kind string) bool {
	g, ok := s.Dest(kind).(Gatherer)
	return ok && g.Gathers()
}
