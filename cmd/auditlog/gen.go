package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/auditlog/auditlog/kafka"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/gen"
)

// runGen generates realistic contact-center audit events (package gen),
// deterministically from a seed, and writes them as NDJSON (a file or
// stdout), to HTTP ingest, or to Kafka, as fast as possible or at a rate.
//
//	auditlog gen --count 100000 > events.ndjson
//	auditlog gen --count 100000 --http http://127.0.0.1:8080 --token $AUDITLOG_INGEST_TOKEN
//	auditlog gen --count 1000000 --kafka-brokers 127.0.0.1:9092 --rate 5000
//
// genOptions are the flags of auditlog gen.
type genOptions struct {
	count, tenants, rate, batch, days   int
	seed                                uint64
	skew                                float64
	out, httpURL, token, brokers, topic string
	firstTenant, end                    string
	withIDs                             bool
}

func (o *genOptions) bind(b *binder) {
	b.fs.IntVar(&o.count, "count", 10000, "events to generate")
	b.fs.Uint64Var(&o.seed, "seed", 1, "random seed: the same seed gives the same events")
	b.fs.IntVar(&o.tenants, "tenants", 20, "tenants, spread over the three plans")
	b.fs.Float64Var(&o.skew, "skew", 1.1, "Zipf exponent of tenant sizes (0: even)")
	b.fs.IntVar(&o.days, "days", 30, "the events span this many days before --end")
	b.fs.StringVar(&o.end, "end", "", "end of the time span, RFC 3339 (default now); give it for byte-identical runs")
	b.fs.BoolVar(&o.withIDs, "with-ids", false, "set event ids (otherwise the service derives them)")
	b.fs.StringVar(&o.firstTenant, "first-tenant", "", "id of the first and biggest tenant, e.g. the demo tenant (with --tenants 1, of every event)")
	b.fs.IntVar(&o.rate, "rate", 0, "events per second (0: as fast as possible)")
	b.fs.IntVar(&o.batch, "batch", 500, "events per HTTP request or Kafka write")
	b.fs.StringVar(&o.out, "out", "-", "NDJSON file to write (- for stdout), when neither --http nor --kafka-brokers is given")
	b.fs.StringVar(&o.httpURL, "http", "", "base URL of an auditlog serve: events go to POST /api/audit-events")
	b.str(&o.token, "token", "AUDITLOG_INGEST_TOKEN", "", "service credential for --http")
	b.fs.StringVar(&o.brokers, "kafka-brokers", "", "Kafka brokers, comma-separated: events go to --kafka-topic")
	b.fs.StringVar(&o.topic, "kafka-topic", "audit-events", "Kafka topic")
}

// generator returns the generator the options describe.
func (o *genOptions) generator() (*gen.Generator, error) {
	if o.firstTenant != "" && !audit.ValidUUID(o.firstTenant) {
		return nil, fmt.Errorf("--first-tenant %q is not a UUID", o.firstTenant)
	}
	end := time.Now().UTC()
	if o.end != "" {
		ts, err := audit.ParseTimestamp(o.end)
		if err != nil {
			return nil, fmt.Errorf("--end: %w", err)
		}
		end = ts.Time
	}
	return gen.New(gen.Config{Seed: o.seed, Tenants: o.tenants, Skew: o.skew, WithIDs: o.withIDs, FirstTenantID: o.firstTenant,
		Start: end.Add(-time.Duration(o.days) * 24 * time.Hour), End: end}, o.count), nil
}

func runGen(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	b := newBinder("auditlog gen", getenv, stderr)
	var o genOptions
	o.bind(b)
	b.describe(stdout, "Usage: auditlog gen [flags]\n\nGenerates realistic contact-center audit events (the same generator as make demo and make bench).\n")
	if err := b.parse(args); err != nil {
		return err
	}
	g, err := o.generator()
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	sink, closeSink, err := o.sink(ctx, stdout)
	if err != nil {
		return err
	}
	start := time.Now()
	if err := o.send(ctx, g, sink); err != nil {
		return err
	}
	if closeSink != nil {
		if err := closeSink(); err != nil {
			return err
		}
	}
	fmt.Fprintf(stderr, "generated %d events in %s\n", o.count, time.Since(start).Round(time.Millisecond))
	return nil
}

// send generates the events batch by batch into sink, paced at the
// option's rate when there is one.
func (o *genOptions) send(ctx context.Context, g *gen.Generator, sink func([]audit.Event) error) error {
	start := time.Now()
	for sent := 0; sent < o.count; {
		n := min(o.batch, o.count-sent)
		evs := make([]audit.Event, n)
		for i := range evs {
			evs[i] = g.Next()
		}
		if err := sink(evs); err != nil {
			return err
		}
		sent += n
		if o.rate > 0 { // pace: sent events should have taken sent/rate seconds
			if wait := time.Duration(float64(sent)/float64(o.rate)*float64(time.Second)) - time.Since(start); wait > 0 {
				select {
				case <-time.After(wait):
				case <-ctx.Done():
					return ctx.Err()
				}
			}
		}
	}
	return nil
}

// sink returns where the events go: HTTP ingest, Kafka, or NDJSON.
func (o *genOptions) sink(ctx context.Context, stdout io.Writer) (func([]audit.Event) error, func() error, error) {
	switch {
	case o.httpURL != "":
		return o.httpSink(ctx), nil, nil
	case o.brokers != "":
		w := kafka.NewWriter(kafka.WriterConfig{Brokers: splitList(o.brokers), Topic: o.topic,
			BatchSize: o.batch, BatchBytes: 16 << 20, BatchTimeout: 10 * time.Millisecond})
		return func(evs []audit.Event) error {
			msgs, err := kafka.EventMessages(evs)
			if err != nil {
				return err
			}
			return w.WriteMessages(ctx, msgs...)
		}, w.Close, nil
	}
	f, closeFile := stdout, func() error { return nil }
	if o.out != "-" {
		file, err := os.Create(o.out)
		if err != nil {
			return nil, nil, err
		}
		f, closeFile = file, file.Close
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	enc := json.NewEncoder(bw)
	return func(evs []audit.Event) error {
		for i := range evs {
			if err := enc.Encode(evs[i]); err != nil {
				return err
			}
		}
		return bw.Flush()
	}, closeFile, nil
}

// httpSink posts each batch to POST /api/audit-events.
func (o *genOptions) httpSink(ctx context.Context) func([]audit.Event) error {
	client := &http.Client{Timeout: time.Minute}
	return func(evs []audit.Event) error {
		body, _ := json.Marshal(evs)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(o.httpURL, "/")+"/api/audit-events", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+o.token)
		res, err := client.Do(req)
		if err != nil {
			return err
		}
		defer res.Body.Close()
		if res.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(res.Body)
			return fmt.Errorf("ingest answered %d: %s", res.StatusCode, b)
		}
		return nil
	}
}
