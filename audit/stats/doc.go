// Package stats is the aggregation of a tenant's events, split from the
// domain root (issue 54): a Query groups a filter's events by a field
// and/or counts them over time, its histogram's range resolved from the
// events' audit.Span and bounded to MaxBuckets buckets (CheckBuckets
// names the interval that fits); Stats is the answer both stores give;
// Reader is what a store implements, and Retained reads it through the
// tenants' plan retention.
package stats
