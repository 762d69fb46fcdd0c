package elasticsearch

import "strconv"

// appendTicket appends the sealing queue's document for refs, written at
// at (Unix milliseconds): {"kind":"ticket","at":…,"n":…,"refs":"…"} with
// the refs packed (ticketpack.go). It is written by hand: the indexer
// queues one ticket per batch, and through encoding/json's reflection it
// took about a tenth of the indexer's CPU (BENCHMARKS.md, "Indexer as
// shipped").
func appendTicket(b []byte, at int64, refs []ticketRef) []byte {
	b = strconv.AppendInt(append(b, `{"kind":"ticket","at":`...), at, 10)
	b = strconv.AppendInt(append(b, `,"n":`...), int64(len(refs)), 10)
	b = appendPackedRefs(append(b, `,"refs":`...), refs)
	return append(b, '}')
}
