package elasticsearch

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/auditlog/auditlog/audit"
)

// Capabilities is what the cluster supports, detected at start and never
// assumed. A full Elasticsearch 8.19 distribution has everything; the
// JDK-less integ-test-zip build that `make test` runs without Docker has
// the server and x-pack core only (docs/testing.md, "What the Elasticsearch test build lacks").
type Capabilities struct {
	// Version is the node version, e.g. "8.19.7".
	Version string
	// Product is the X-Elastic-Product header: "Elasticsearch" for a
	// genuine server.
	Product string
	// RootEndpoint: GET / answers with the cluster info (module rest-root).
	RootEndpoint bool
	// ILM: the _ilm APIs exist (x-pack-ilm). Without them the lifecycle
	// worker of this service enforces retention.
	ILM bool
	// DataStreamAPI: GET/DELETE /_data_stream exist (module data-streams).
	// Data streams themselves (auto-created from a template on
	// op_type=create), _rollover, _resolve/index, PIT, search_after,
	// _count, aggregations and scroll are in the server and always used.
	DataStreamAPI bool
}

// Missing lists, for logs and /readyz, the optional features the cluster
// lacks and what this service does instead.
func (c Capabilities) Missing() []string {
	var out []string
	if !c.ILM {
		out = append(out, "ILM (retention is enforced by the built-in lifecycle worker)")
	}
	if !c.DataStreamAPI {
		out = append(out, "data stream REST API (data streams are resolved with _resolve/index)")
	}
	if !c.RootEndpoint {
		out = append(out, "GET / (the version is read from _nodes)")
	}
	return out
}

// Detect asks the cluster what it supports. It fails with EUNAVAILABLE
// when the cluster cannot be reached, and with EINVALID when the server is
// not Elasticsearch 8.x.
func (c *Client) Detect(ctx context.Context) (Capabilities, error) {
	var caps Capabilities

	// Version: GET / when it exists, else the local node's info.
	root, err := c.Do(ctx, http.MethodGet, "/", nil)
	if err != nil {
		return caps, err
	}
	caps.Product = root.Header.Get("X-Elastic-Product")
	if root.Status == http.StatusOK {
		caps.RootEndpoint = true
	}
	var nodes struct {
		Nodes map[string]struct {
			Version string `json:"version"`
		} `json:"nodes"`
	}
	if err := c.DoJSON(ctx, http.MethodGet, "/_nodes/_local?filter_path=nodes.*.version", nil, &nodes); err != nil {
		return caps, err
	}
	for _, n := range nodes.Nodes {
		caps.Version = n.Version
	}
	if caps.Product != "Elasticsearch" {
		return caps, audit.Errorf(audit.EINVALID, "the server at %v is not Elasticsearch (X-Elastic-Product %q)", c.cfg.URLs, caps.Product)
	}
	if !strings.HasPrefix(caps.Version, "8.") {
		return caps, audit.Errorf(audit.EINVALID, "Elasticsearch %s is not supported: this service needs 8.x", caps.Version)
	}

	if caps.ILM, err = c.endpointExists(ctx, "/_ilm/status"); err != nil {
		return caps, err
	}
	if caps.DataStreamAPI, err = c.endpointExists(ctx, "/_data_stream"); err != nil {
		return caps, err
	}
	return caps, nil
}

// endpointExists tells a handled GET from "no handler" (400, 404 with no
// JSON error object, or 405 "Incorrect HTTP method").
func (c *Client) endpointExists(ctx context.Context, path string) (bool, error) {
	res, err := c.Do(ctx, http.MethodGet, path, nil)
	if err != nil {
		return false, err
	}
	switch res.Status {
	case http.StatusOK:
		return true, nil
	case http.StatusMethodNotAllowed, http.StatusBadRequest, http.StatusNotFound:
		return false, nil
	}
	return false, fmt.Errorf("elasticsearch: unexpected %d probing %s: %s", res.Status, path, snippet(res.Body))
}

// LogValue makes Capabilities print well in slog.
func (c Capabilities) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("version", c.Version),
		slog.Bool("ilm", c.ILM),
		slog.Bool("dataStreamAPI", c.DataStreamAPI),
		slog.Bool("rootEndpoint", c.RootEndpoint),
	)
}
