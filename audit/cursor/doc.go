// Package cursor is the list's search_after cursor, split from the domain
// root (issue 54): a Codec signs what a page's next cursor carries (the
// position after the page's last event and the walk's total) and binds it,
// by an HMAC, to the tenant, the normalised filter and the sort, so that
// a tampered cursor or one reused with another query is refused, naming
// the parameter.
package cursor
