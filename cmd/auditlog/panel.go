package main

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/auditlog/auditlog/panel"
)

func (b *binder) panel(c *Config) {
	b.str(&c.PanelFrameAncestors, "panel-frame-ancestors", "AUDITLOG_PANEL_FRAME_ANCESTORS", "'self'",
		"origins allowed to embed the panel in an iframe (CSP frame-ancestors), space- or comma-separated: 'self', 'none', or https://host[:port]")
}

// frameAncestors parses AUDITLOG_PANEL_FRAME_ANCESTORS.
func frameAncestors(v string) ([]string, error) {
	var out []string
	for _, s := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' }) {
		switch s {
		case "'self'", "'none'":
		default:
			u, err := url.Parse(s)
			if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.User != nil {
				return nil, fmt.Errorf("AUDITLOG_PANEL_FRAME_ANCESTORS: %q is not 'self', 'none' or an origin like https://app.example.com", s)
			}
		}
		out = append(out, s)
	}
	if len(out) > 1 && strings.Contains(v, "'none'") {
		return nil, fmt.Errorf("AUDITLOG_PANEL_FRAME_ANCESTORS: 'none' cannot be combined with other sources")
	}
	return out, nil
}

// mountPanel serves the panel at /settings/audit/ on the API's router,
// and sends / and /settings/audit there.
func mountPanel(e *gin.Engine, ancestors []string) {
	h := gin.WrapH(panel.Handler(panel.Config{FrameAncestors: ancestors}))
	e.GET(panel.Prefix+"*path", h)
	e.HEAD(panel.Prefix+"*path", h)
	to := func(c *gin.Context) { c.Redirect(http.StatusFound, panel.Prefix) }
	e.GET("/settings/audit", to)
	e.GET("/", to)
}
