package audit

// MaxPageBytes bounds the stored bytes of the events of one list page.
// A page of MaxPageSize events of MaxEventBytes each would be 256 MB: a
// page stops early once its events reach this size, answering HasMore
// with the position of its last event, so a walk by cursor goes on
// exactly after it. At least one event is always returned.
const MaxPageBytes = 16 << 20

// PageBudget counts the bytes of a page being filled.
type PageBudget struct{ used int }

// Fits reports whether an event of n stored bytes joins the page, and
// counts it when it does: the first event always fits; later ones only
// while the page stays within MaxPageBytes.
func (b *PageBudget) Fits(n int) bool {
	if b.used > 0 && b.used+n > MaxPageBytes {
		return false
	}
	b.used += n
	return true
}
