// Package mask is the sensitive-change policy, split from the domain root
// (issue 54): which resource types must carry their complete state before
// and after (spec §1.3), which field names are secrets (matched in their
// normal form, SecretName), how a secret's value is replaced by a keyed
// marker (audit.MaskPrefix and a hash, one per tenant and value) in the
// before, after and diff, and the rules of the masking key. Policy.Decode
// is how both entry points, HTTP ingest and the Kafka indexer, read an
// event. The marker's form (audit.IsMarker) stays in the root: the search
// text leaves markers out.
package mask
