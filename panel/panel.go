// Package panel serves the admin panel (Settings → Audit): the TypeScript
// app under panel/src, built by Vite into panel/dist, committed, and
// embedded here so that `go build` and `make run` need only Go. The panel
// talks only to the public JSON API; this package serves its files and
// the headers that keep it safe to embed.
package panel

import (
	"embed"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

//go:embed all:dist
var dist embed.FS

// Prefix is where the panel is served.
const Prefix = "/settings/audit/"

// Config is the panel section of the configuration.
type Config struct {
	// FrameAncestors are the origins allowed to embed the panel in an
	// iframe (CSP frame-ancestors): "'self'" by default; "'none'" forbids
	// any.
	FrameAncestors []string
}

// Files returns the built panel.
func Files() fs.FS {
	sub, _ := fs.Sub(dist, "dist")
	return sub
}

// Handler serves the panel under Prefix: the hashed assets for a year,
// and index.html (never cached) for every other path, so that a URL the
// panel made (a filter, an open event) can be reloaded or shared.
func Handler(cfg Config) http.Handler {
	files := Files()
	ancestors := strings.Join(cfg.FrameAncestors, " ")
	if ancestors == "" {
		ancestors = "'self'"
	}
	csp := "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; " +
		"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors " + ancestors
	assets := http.FileServerFS(files)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		rel := strings.TrimPrefix(path.Clean("/"+strings.TrimPrefix(r.URL.Path, Prefix)), "/")
		if strings.HasPrefix(rel, "assets/") {
			if _, err := fs.Stat(files, rel); err == nil {
				h.Set("Cache-Control", "public, max-age=31536000, immutable")
				r2 := r.Clone(r.Context())
				r2.URL.Path = "/" + rel
				assets.ServeHTTP(w, r2)
				return
			}
			http.NotFound(w, r)
			return
		}
		index, err := fs.ReadFile(files, "index.html")
		if err != nil {
			http.Error(w, "the panel is not built (make panel)", http.StatusNotFound)
			return
		}
		h.Set("Cache-Control", "no-cache")
		h.Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(index)
	})
}
