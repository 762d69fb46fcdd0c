package vlog

import (
	"context"
	"strings"
	"time"
)

// CosignedCheckpoint is a tenant's latest checkpoint that witnesses
// cosigned: the signed note with the log's signature and every
// cosignature gathered for it (C2SP tlog-cosignature lines).
type CosignedCheckpoint struct {
	Size int64     `json:"size"`
	Note string    `json:"note"`
	At   time.Time `json:"at"` // when the last cosignature was added
}

// Signatures counts the note's signature lines.
func (c CosignedCheckpoint) Signatures() int {
	_, sigs, ok := strings.Cut(c.Note, "\n\n")
	if !ok {
		return 0
	}
	return strings.Count(sigs, "\n— ") + map[bool]int{true: 1, false: 0}[strings.HasPrefix(sigs, "— ")]
}

// NoteText is the signed text of a signed note: its lines before the
// blank line and the signatures.
func NoteText(note string) string {
	text, _, _ := strings.Cut(note, "\n\n")
	return text + "\n"
}

// Holds reports whether c is signed (a checkpoint note) with its
// cosignatures: the same checkpoint text, so the same tree.
func (c CosignedCheckpoint) Holds(signed string) bool {
	return c.Size > 0 && NoteText(c.Note) == NoteText(signed)
}

// Replaces reports whether c should replace old: a bigger tree, or the
// same tree with more signatures.
func (c CosignedCheckpoint) Replaces(old CosignedCheckpoint) bool {
	return c.Size > old.Size || (c.Size == old.Size && c.Signatures() > old.Signatures())
}

// CosignStore keeps each tenant's latest cosigned checkpoint, which the
// API publishes and verifiers that require witnesses read.
type CosignStore interface {
	// CosignedCheckpoint returns the tenant's latest cosigned checkpoint
	// (Size 0: none yet). Errors: EUNAVAILABLE.
	CosignedCheckpoint(ctx context.Context, tenantID string) (CosignedCheckpoint, error)
	// SaveCosigned stores c when it replaces the stored one (Replaces),
	// atomically against other writers. Errors: EUNAVAILABLE.
	SaveCosigned(ctx context.Context, tenantID string, c CosignedCheckpoint) error
}
