package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/witness"
)

const witnessUsage = `Usage: auditlog witness --api <url> --key <verifier key or file> --token <jwt> [--token <jwt>…] [--dir <dir>] [--every 1m] [--once] [--metrics-addr <addr>]

Keeps the latest checkpoint of each tenant's verifiable log (one
--token per tenant, an admin's token of that tenant) in --dir, and checks
that each new checkpoint is signed by the pinned key and extends the kept
one (a consistency proof from the API, checked here). A fork (another tree
of the same size, or one that does not extend the kept one) or a rollback
(a smaller tree, or none) is logged as an error with an evidence file
holding both signed checkpoints, counted in auditlog_witness_alarms_total,
and ends the witness with exit 1; the kept checkpoint is never replaced by
one that raised an alarm. With --once it checks each tenant once: exit 0
when all extend, 1 on an alarm, 3 when a check could not be made (the
service unreachable, no checkpoint yet). Exit 2: usage.
`

// witnessMetrics are the witness's metrics.
type witnessMetrics struct {
	checks *prometheus.CounterVec
	alarms *prometheus.CounterVec
	size   *prometheus.GaugeVec
}

func newWitnessMetrics(reg prometheus.Registerer) witnessMetrics {
	m := witnessMetrics{
		checks: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "auditlog_witness_checks_total", Help: "Checkpoint checks, by outcome (ok, alarm, error)."}, []string{"outcome"}),
		alarms: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "auditlog_witness_alarms_total", Help: "Forks and rollbacks seen, by kind."}, []string{"kind"}),
		size:   prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "auditlog_witness_tree_size", Help: "The size of the last checkpoint kept, by tenant."}, []string{"tenant"}),
	}
	reg.MustRegister(m.checks, m.alarms, m.size)
	return m
}

// errUnchecked: --once could not check every tenant.
var errUnchecked = errors.New("not every tenant could be checked")

func runWitness(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var api, key, dir, metricsAddr, tokenList, witnessKeys string
	var quorum int
	var every time.Duration
	var once bool
	var tokens multiFlag
	b := newBinder("auditlog witness", getenv, stderr)
	b.describe(stdout, witnessUsage)
	b.str(&api, "api", "AUDITLOG_WITNESS_API", "", "the service's base URL (required)")
	b.str(&key, "key", "AUDITLOG_WITNESS_KEY", "", "the pinned checkpoint keys, as GET /api/log-key gives them, or files holding them, comma-separated (required; after a rotation, the new key next to the old)")
	b.str(&witnessKeys, "witness-key", "AUDITLOG_WITNESS_COSIGNERS", "", "witnesses' keys (cosignature/v1), or files holding them, comma-separated: only checkpoints they cosigned are taken")
	b.int(&quorum, "witness-quorum", "AUDITLOG_WITNESS_QUORUM", 0, "how many of --witness-key must have cosigned (default: all)")
	b.secret(&tokenList, "tokens", "AUDITLOG_WITNESS_TOKENS", "tokens, comma-separated, one per tenant (or --token, repeated)")
	b.fs.Var(&tokens, "token", "a tenant's token (repeat for each tenant)")
	b.str(&dir, "dir", "AUDITLOG_WITNESS_DIR", "./witness", "where the kept checkpoints and the evidence files are")
	b.duration(&every, "every", "AUDITLOG_WITNESS_EVERY", time.Minute, "how often each tenant's checkpoint is checked")
	b.boolean(&once, "once", "AUDITLOG_WITNESS_ONCE", false, "check each tenant once and exit")
	b.str(&metricsAddr, "metrics-addr", "AUDITLOG_WITNESS_METRICS_ADDR", "", "serve /metrics on this address (none by default)")
	if err := b.parse(args); err != nil {
		return usageError{err}
	}
	if tokenList != "" {
		tokens = append(tokens, strings.Split(tokenList, ",")...)
	}
	for i := range tokens {
		tokens[i] = strings.TrimSpace(tokens[i])
	}
	tenants, err := tokenTenants(tokens)
	if api == "" || key == "" || len(tokens) == 0 || err != nil {
		fmt.Fprint(stderr, witnessUsage)
		return usageError{fmt.Errorf("--api, --key and at least one --token (a tenant's) are required (%v)", err)}
	}
	if every < time.Second || every > 24*time.Hour {
		return usageError{fmt.Errorf("AUDITLOG_WITNESS_EVERY=%s: want from 1s to 24h", every)}
	}
	keys, err := logKeys("--key", key)
	if err == nil {
		keys, err = witnessPolicy(keys, witnessKeys, quorum)
	}
	if err != nil {
		return usageError{err}
	}
	logger := slog.New(slog.NewJSONHandler(stdout, nil))
	logger.Info("witness", append([]any{"tenants", len(tokens)}, b.resolved()...)...)
	reg := prometheus.NewRegistry()
	m := newWitnessMetrics(reg)
	if metricsAddr != "" {
		ln, err := net.Listen("tcp", metricsAddr)
		if err != nil {
			return fmt.Errorf("AUDITLOG_WITNESS_METRICS_ADDR: %w", err)
		}
		srv := &http.Server{Handler: promhttp.HandlerFor(reg, promhttp.HandlerOpts{}), ReadHeaderTimeout: 5 * time.Second}
		go func() { _ = srv.Serve(ln) }()
		defer srv.Close()
		logger.Info("metrics", "addr", ln.Addr().String())
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	w := &witness.Witness{API: api, Keys: keys, Dir: dir}
	for {
		err := witnessRound(ctx, w, tenants, tokens, m, logger)
		if once || err != nil && !errors.Is(err, errUnchecked) {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(every):
		}
	}
}

// witnessRound checks each tenant once. Errors: the first alarm, or
// errUnchecked when a check could not be made.
func witnessRound(ctx context.Context, w *witness.Witness, tenants, tokens []string, m witnessMetrics, logger *slog.Logger) error {
	var out error
	for i, tenant := range tenants {
		res, err := w.Check(ctx, tenant, tokens[i])
		var alarm *witness.Alarm
		switch {
		case errors.As(err, &alarm):
			m.checks.WithLabelValues("alarm").Inc()
			m.alarms.WithLabelValues(alarm.Kind).Inc()
			logger.Error("witness alarm: the log does not extend the checkpoint kept", "kind", alarm.Kind, "tenant", tenant,
				"kept", alarm.Kept.Size, "seen", alarm.Seen.Size, "detail", alarm.Detail, "evidence", alarm.Evidence)
			return fmt.Errorf("witness alarm: %w", err)
		case err != nil:
			m.checks.WithLabelValues("error").Inc()
			logger.Warn("checkpoint not checked; the next round tries again", "tenant", tenant, "err", err)
			out = fmt.Errorf("%w: %v", errUnchecked, err)
		default:
			m.checks.WithLabelValues("ok").Inc()
			m.size.WithLabelValues(tenant).Set(float64(res.Checkpoint.Size))
			logger.Info("checkpoint extends the kept one", "tenant", tenant, "size", res.Checkpoint.Size, "kept", res.Previous)
		}
	}
	return out
}

// tokenTenants reads each token's tenant claim (the witness is not the
// token's verifier: the service checks it; the claim says which log).
func tokenTenants(tokens []string) ([]string, error) {
	out := make([]string, len(tokens))
	for i, tok := range tokens {
		parts := strings.Split(strings.TrimSpace(tok), ".")
		if len(parts) != 3 {
			return nil, fmt.Errorf("token %d is not a JWT", i+1)
		}
		raw, err := base64.RawURLEncoding.DecodeString(parts[1])
		var claims struct {
			Tenant string `json:"tenant"`
		}
		if err != nil || json.Unmarshal(raw, &claims) != nil || !audit.ValidUUID(claims.Tenant) {
			return nil, fmt.Errorf("token %d names no tenant", i+1)
		}
		out[i] = claims.Tenant
	}
	return out, nil
}
