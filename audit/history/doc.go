// Package history is the domain of a resource's versions, split from the
// domain root (issue 54): the filter of a resource's change events
// (Filter), each version as the history lists it (Entry), the state an
// event recorded, before or after (State), and the comparison of two
// versions field by field (Compare). Restores read their states here.
package history
