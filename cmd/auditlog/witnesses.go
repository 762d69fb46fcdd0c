package main

import (
	"context"
	"fmt"
	"github.com/auditlog/auditlog/audit/vlog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/seal"
	"github.com/auditlog/auditlog/tlogwitness"
)

// parseWitnesses reads AUDITLOG_LOG_WITNESSES: comma-separated entries,
// each "<url> <witness key>". Errors name the variable and the entry.
func parseWitnesses(text string) ([]tlogwitness.Witness, error) {
	var out []tlogwitness.Witness
	seen := map[string]bool{}
	for _, entry := range strings.Split(text, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		fields := strings.Fields(entry)
		if len(fields) != 2 {
			return nil, fmt.Errorf("AUDITLOG_LOG_WITNESSES: %q: want \"<url> <witness key>\"", entry)
		}
		u, err := url.Parse(fields[0])
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("AUDITLOG_LOG_WITNESSES: %q: want an http(s) URL", fields[0])
		}
		key, err := vlog.ParseWitnessKey(fields[1])
		if err != nil {
			return nil, fmt.Errorf("AUDITLOG_LOG_WITNESSES: %v", err)
		}
		if seen[key.Name()] {
			return nil, fmt.Errorf("AUDITLOG_LOG_WITNESSES: the witness %s is listed twice", key.Name())
		}
		seen[key.Name()] = true
		out = append(out, tlogwitness.Witness{URL: fields[0], Key: key, HTTP: &http.Client{Timeout: 10 * time.Second}})
	}
	return out, nil
}

// startCosigner runs the cosigner in the background when witnesses are
// configured (nil otherwise), and returns it with the witnesses' keys in
// note's text form, which the API publishes.
func (m *Main) startCosigner(ctx context.Context, store eventStore, ls vlog.Store) (*seal.Cosigner, []string, error) {
	ws, err := parseWitnesses(m.Config.Log.Witnesses)
	if err != nil || len(ws) == 0 {
		return nil, nil, err
	}
	cs, ok1 := store.(vlog.CosignStore)
	dir, ok2 := store.(audit.TenantDirectory)
	if !ok1 || !ok2 {
		return nil, nil, fmt.Errorf("AUDITLOG_LOG_WITNESSES: the %s store keeps no cosigned checkpoints", m.Config.Store)
	}
	c := seal.NewCosigner(seal.CosignConfig{Witnesses: ws}, seal.CosignDeps{Log: ls, Cosigned: cs, Tenants: dir, Logger: m.Logger, Registry: m.Registry})
	m.background(ctx, "cosigner", c.Run)
	names, keys := make([]string, len(ws)), make([]string, len(ws))
	for i, w := range ws {
		names[i], keys[i] = w.Key.Name(), fmt.Sprint(w.Key)
	}
	m.Logger.Info("checkpoints are cosigned", "witnesses", names)
	return c, keys, nil
}
