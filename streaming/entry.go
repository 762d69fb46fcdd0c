package streaming

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"time"
)

// Time is the time of an entry's event, whatever the stream's format: the
// event JSON's (and a test event's) timestamp, or OCSF's time in
// milliseconds; zero when it has neither.
func (e Entry) Time() time.Time {
	var head struct {
		Timestamp time.Time `json:"timestamp"`
		Time      int64     `json:"time"`
	}
	_ = json.Unmarshal(e.Event, &head) // a field it lacks stays zero
	if head.Time != 0 {
		return time.UnixMilli(head.Time).UTC()
	}
	return head.Timestamp
}

// GzipArrays packs events, each made an item by item and written as
// JSON, into gzip-compressed JSON arrays of at most maxItems items (0: any
// number) and maxBytes before compression, in order: the bodies of the
// requests of a destination that takes arrays (Datadog, Sentinel). An item
// larger than maxBytes goes alone.
func GzipArrays[T any](events []Entry, item func(Entry) T, maxItems, maxBytes int) ([][]byte, error) {
	items := make([][]byte, 0, len(events))
	for _, e := range events {
		it, err := json.Marshal(item(e))
		if err != nil {
			return nil, err
		}
		items = append(items, it)
	}
	var out [][]byte
	var cur [][]byte
	size := 2 // the brackets
	flush := func() error {
		if len(cur) == 0 {
			return nil
		}
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		_, _ = zw.Write([]byte("["))
		_, _ = zw.Write(bytes.Join(cur, []byte(",")))
		_, _ = zw.Write([]byte("]"))
		if err := zw.Close(); err != nil {
			return err
		}
		out, cur, size = append(out, buf.Bytes()), nil, 2
		return nil
	}
	for _, it := range items {
		if len(cur) > 0 && (len(cur) == maxItems || size+len(it)+1 > maxBytes) {
			if err := flush(); err != nil {
				return nil, err
			}
		}
		cur, size = append(cur, it), size+len(it)+1
	}
	return out, flush()
}
