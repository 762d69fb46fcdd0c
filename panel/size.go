package panel

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io/fs"
	"regexp"
)

var scriptRef = regexp.MustCompile(`(?:src|href)="/settings/audit/(assets/[^"]+\.js)"`)

// InitialJavaScript returns the size of the JavaScript index.html loads,
// raw and gzipped (best compression), for the 250 KB budget.
func InitialJavaScript() (raw, gzipped int, err error) {
	files := Files()
	index, err := fs.ReadFile(files, "index.html")
	if err != nil {
		return 0, 0, err
	}
	for _, m := range scriptRef.FindAllSubmatch(index, -1) {
		b, err := fs.ReadFile(files, string(m[1]))
		if err != nil {
			return 0, 0, fmt.Errorf("index.html loads %s: %w", m[1], err)
		}
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		_, _ = zw.Write(b)
		zw.Close()
		raw, gzipped = raw+len(b), gzipped+buf.Len()
	}
	return raw, gzipped, nil
}
