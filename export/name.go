package export

import (
	"net/url"
	"sort"
	"strings"

	"github.com/auditlog/auditlog/audit/exportjob"

	"github.com/auditlog/auditlog/audit"
)

// maxNameFilters bounds the filters part of a file name, in bytes.
const maxNameFilters = 80

// Name is the attachment name of an export: what it holds, so that a
// folder of downloads tells them apart without opening them:
//
//	audit-log_2026-11-01T0000Z_2026-11-25T0904Z_action-delete_resourceType-queue_1a2b3c4d.csv
//
// the window (from, or "start" when open; to, pinned at the request), the
// filters of query (sorted, each name-value, cut at 80 bytes; the time,
// sort and paging parameters left out), the first 8 characters of id
// (a job's, or a request's), and the format's extension. Every character
// outside [A-Za-z0-9.-] becomes "-", so the name is safe on every file
// system and in a Content-Disposition header.
func Name(f audit.Filter, query string, format exportjob.Format, id string) string {
	const layout = "2006-01-02T1504Z"
	from, to := "start", "now"
	if f.From != nil {
		from = f.From.UTC().Format(layout)
	}
	if f.To != nil {
		to = f.To.UTC().Format(layout)
	}
	parts := []string{"audit-log", from, to}
	if filters := nameFilters(query); filters != "" {
		parts = append(parts, filters)
	}
	if len(id) > 8 {
		id = id[:8]
	}
	if id != "" {
		parts = append(parts, safeName(id))
	}
	return strings.Join(parts, "_") + "." + format.Ext()
}

// nameFilters is the filters of query as name-value pairs joined by "_".
func nameFilters(query string) string {
	v, _ := url.ParseQuery(query)
	var out []string
	for k, vals := range v {
		switch k {
		case "from", "to", "sort", "order", "async", "format", "page", "pageSize", "cursor":
			continue
		}
		for _, val := range vals {
			if val = strings.TrimSpace(val); val != "" {
				out = append(out, safeName(k+"-"+val))
			}
		}
	}
	sort.Strings(out)
	s := strings.Join(out, "_")
	if len(s) > maxNameFilters {
		s = strings.TrimRight(s[:maxNameFilters], "-_")
	}
	return s
}

func safeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-') {
			b[i] = '-'
		}
	}
	return strings.Trim(string(b), ".")
}
