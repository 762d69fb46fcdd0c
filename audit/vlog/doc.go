// Package vlog is the domain of the verifiable log, split from the domain
// root (issue 54): an event's leaf (its canonical encoding, LeafData; its
// digest and entry, the leaf hash a tlog client recomputes), a tenant's
// log (State, Origin, Checkpoint) and the Store a backend implements; the
// checkpoint keys a verifier pins (Keys, VerifierKey), the witnesses' keys
// and cosigned checkpoints (CosignedCheckpoint, CosignStore); and the
// acceptance tags (Acceptor) by which the sealer seals only what a
// process of the service accepted; and a stored row as a verifier reads
// it (StoredRow, DecodeStoredRow, RowScanner) with the findings of its
// indexes (IndexFinding, IndexRepairer). The sealer that builds the trees is
// the top-level package seal.
package vlog
