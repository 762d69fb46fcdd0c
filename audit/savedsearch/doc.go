// Package savedsearch is the domain of saved searches, split from the
// domain root (issue 54). Saved searches are a user's named views of the
// log: the filters of GET /api/audit-logs as a query string (search language included) and a
// time range, relative ("7d") or fixed. They are private to their owner
// (one list per tenant and user); sharing is by link, and a link carries
// the search itself, so it shows the same events to whoever opens it even
// after its owner edits or deletes the saved one. Saving one changes no
// tenant data and is not recorded in the log; reading events through it
// is, as any read.
package savedsearch
