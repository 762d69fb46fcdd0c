package elasticsearch

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/auditlog/auditlog/internal/jsonenc"
)

// The _bulk exchange of WriteEvents was, after the events' own decoding,
// where the indexer allocated most (docs/indexer.md, "CPU per event"):
// a new body of about 1 MB per batch of 1,000 events, zeroed and then
// collected, and the answer (about 90 KB, sent chunked) read into a
// growing buffer and decoded by encoding/json's reflection. Bodies and
// answer buffers are now recycled, and the answer is read with the page
// reader's scanner.

// bulkBodies holds _bulk bodies, and buffers for their answers, for
// reuse.
var bulkBodies = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledBody is the largest body kept for reuse: a batch of large
// events (up to audit.MaxEventBytes each) is let go, so the pool never
// pins more than a few ordinary batches.
const maxPooledBody = 8 << 20

func bulkBody() *bytes.Buffer {
	b := bulkBodies.Get().(*bytes.Buffer)
	b.Reset()
	return b
}

// recycleBody returns b to the pool. WriteEvents calls it only once
// Elasticsearch has answered for every item, that is, once it has read
// the whole body: the HTTP transport can no longer be reading from b.
// After an error the body is left to the collector, as the transport may
// still be sending it.
func recycleBody(b *bytes.Buffer) {
	if b.Cap() <= maxPooledBody {
		bulkBodies.Put(b)
	}
}

// parseBulkAnswer reads the items of a _bulk answer: in the shape nearly
// every answer has (createdItems), or else with the general scanner.
func parseBulkAnswer(b []byte) ([]bulkItem, error) {
	if items, ok := createdItems(b); ok {
		return items, nil
	}
	return parseBulkItems(b)
}

// createdItems reads an answer without errors in the exact bytes
// Elasticsearch writes for one (compact, keys in its order, no escape in
// an index name):
//
//	{"errors":false,"items":[{"create":{"_index":"…","status":201}},…]}
//
// and reports false on any other, for parseBulkItems to read. It matches
// bytes instead of walking JSON members: the general scanner took half a
// microsecond per item, a twentieth of the indexer's CPU per event.
func createdItems(b []byte) ([]bulkItem, bool) {
	const head, open, mid, end = `{"errors":false,"items":[`, `{"create":{"_index":`, `,"status":`, `}}`
	rest, ok := bytes.CutPrefix(b, []byte(head))
	if !ok {
		return nil, false
	}
	var items []bulkItem
	var lastIndex string
	for len(rest) > 0 && rest[0] != ']' {
		if rest, ok = bytes.CutPrefix(rest, []byte(open)); !ok || len(rest) == 0 || rest[0] != '"' {
			return nil, false
		}
		// A string without an escape whose bytes, valid UTF-8, are its value.
		q, plain, ok := jsonenc.StringAt(rest, 0)
		if !ok || !plain || !utf8.Valid(rest[1:q-1]) {
			return nil, false
		}
		if string(rest[1:q-1]) != lastIndex {
			lastIndex = string(rest[1 : q-1])
		}
		if rest, ok = bytes.CutPrefix(rest[q:], []byte(mid)); !ok {
			return nil, false
		}
		status, d := 0, 0
		for ; d < len(rest) && d < 4 && rest[d] >= '0' && rest[d] <= '9'; d++ {
			status = status*10 + int(rest[d]-'0')
		}
		if d == 0 || (d > 1 && rest[0] == '0') {
			return nil, false
		}
		if rest, ok = bytes.CutPrefix(rest[d:], []byte(end)); !ok {
			return nil, false
		}
		var it bulkItem
		it.Create.Index, it.Create.Status = lastIndex, status
		items = append(items, it)
		if len(rest) > 1 && rest[0] == ',' && rest[1] == '{' {
			rest = rest[1:]
		} else if len(rest) == 0 || rest[0] != ']' {
			return nil, false
		}
	}
	return items, string(rest) == "]}"
}

// parseBulkItems reads the items of a _bulk answer filtered as
// WriteEvents asks (filter_path errors, items.*._index, items.*.status,
// items.*.error.type, items.*.error.reason):
//
//	{"errors":false,"items":[{"create":{"_index":"…","status":201}},…]}
//
// An item's error, rare, is decoded with encoding/json. Items usually
// share their index name, so one string serves a run of them.
func parseBulkItems(b []byte) ([]bulkItem, error) {
	var items []bulkItem
	var lastIndex string
	create := func(it *bulkItem) func(key string, v int) (int, error) {
		return func(key string, v int) (int, error) {
			e, err := skipValue(b, v)
			if err != nil {
				return e, err
			}
			switch key {
			case "_index":
				raw := b[v:e]
				if len(raw) < 2 || raw[0] != '"' || len(raw)-2 != len(lastIndex) || string(raw[1:len(raw)-1]) != lastIndex {
					if err := json.Unmarshal(raw, &lastIndex); err != nil {
						return e, err
					}
				}
				it.Create.Index = lastIndex
			case "status":
				it.Create.Status, err = strconv.Atoi(string(b[v:e]))
			case "error":
				err = json.Unmarshal(b[v:e], &it.Create.Error)
			}
			return e, err
		}
	}
	item := func(v int) (int, error) {
		var it bulkItem
		e, err := members(b, v, func(key string, v int) (int, error) {
			if key != "create" {
				return skipValue(b, v)
			}
			return members(b, v, create(&it))
		})
		items = append(items, it)
		return e, err
	}
	_, err := members(b, 0, func(key string, v int) (int, error) {
		if key != "items" {
			return skipValue(b, v)
		}
		return elements(b, v, item)
	})
	return items, err
}
