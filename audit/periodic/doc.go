// Package periodic is the domain of the Enterprise periodic export, split
// from the domain root (issue 54): a tenant's settings and their rules,
// the windows (hourly or daily), the signed digest that vouches for a
// window's files and its canonical form, the object keys, the delivered
// records and the scheduler's state, the Store a backend implements, and
// the record of each delivery written into the tenant's log. The export
// that runs it is the top-level package periodicexport.
package periodic
