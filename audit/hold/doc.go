// Package hold is the legal hold's domain (issue 55): a named matter that
// freezes part of a tenant's log against retention until counsel releases
// it. A hold is what the tenant's own log records of it, never a row of
// the store: placing, changing, asking to release and undoing a release
// are records (resource type "legal_hold") the service writes into the
// log, and the holds in force are those records folded in the order the
// service accepted them (Fold). Whoever can write the database can then
// neither lift a hold nor invent one: a record needs the service's
// acceptance tag, and producers cannot send one (the type is reserved at
// ingest).
//
// A hold's scope is a time range, a query of the search language, or
// both (Scope.Filter); the stores match it as they match a list query,
// so the events a hold keeps are the events its preview lists. A release
// takes effect after a grace period during which it can be undone
// (Hold.State): until then the hold still holds.
package hold
