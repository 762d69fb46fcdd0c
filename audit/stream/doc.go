// Package stream is the domain of a tenant's streams (issue 43), split
// from the domain root (issue 54): a stream's configuration and the rules
// it is held to (Rules, Stream.Normalize), its destination kinds, its
// state changes (deliveries, parked ranges, pauses, alerts), its health,
// the signed hourly manifests of S3 streams, and the Store a backend
// implements. Like the root, it imports no transport or backend;
// delivery is streaming's.
package stream
