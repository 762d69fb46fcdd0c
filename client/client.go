// Package client is the producer side of the audit log, for the platform
// services that own the resources: it builds valid events (id, timestamp,
// complete before/after states with secrets masked before they leave the
// process), publishes them to Kafka keyed by tenant or to the HTTP ingest
// endpoint, and receives restore requests (from the Kafka topic or as
// signed webhooks) with their signature checked.
//
// It depends on the audit domain and kafka-go only, never on the
// service's HTTP or storage packages.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/auditlog/auditlog/audit/mask"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/auditlog/auditlog/kafka"

	"github.com/auditlog/auditlog/audit"
)

// Defaults of Config.
const (
	DefaultTopic        = "audit-events"
	DefaultRestoreTopic = "config-restore-requests"
)

// Config says where events go and how secrets are masked. Events go to
// the ingest endpoint when IngestURL is set, else to Kafka; Brokers also
// serve ConsumeRestores.
type Config struct {
	Brokers []string
	Topic   string // default DefaultTopic
	// IngestURL is the service's base URL (POST /api/audit-events), with
	// IngestToken its service credential.
	IngestURL   string
	IngestToken string
	HTTPClient  *http.Client
	// MaskKey, when set, makes the client mask secret fields before an
	// event leaves the process, so that the topic never holds them in
	// clear. It must be at least mask.MinKey random bytes
	// (NewMaskKey makes one; keep it in the producer's secret store, the
	// same for every instance, so that an unchanged secret keeps its
	// marker): New refuses a shorter or guessable one. Without it the
	// client sends the state as it is, over the authenticated channel,
	// and only the service masks. Either way the service masks every
	// value under a secret field again with its own key, so what is
	// stored never depends on this key (docs/ingest.md, "Who masks secrets").
	MaskKey []byte
	// SecretFields and SensitiveTypes default to the service's defaults.
	SecretFields   []string
	SensitiveTypes []string
	// RestoreTopic (default DefaultRestoreTopic) and RestoreSecret (the
	// service's AUDITLOG_RESTORE_SECRET) are for receiving restore
	// requests.
	RestoreTopic  string
	RestoreSecret []byte
	// Now is the clock of event timestamps (default time.Now).
	Now func() time.Time
}

// Client publishes audit events and receives restore requests.
type Client struct {
	cfg    Config
	policy *mask.Policy
	w      *kafka.Writer
}

// New checks cfg and returns a client; Close releases it.
func New(cfg Config) (*Client, error) {
	if len(cfg.Brokers) == 0 && cfg.IngestURL == "" {
		return nil, fmt.Errorf("client: set Brokers (Kafka) or IngestURL (HTTP ingest)")
	}
	if cfg.MaskKey != nil {
		if err := mask.CheckKey(cfg.MaskKey); err != nil {
			return nil, fmt.Errorf("client: MaskKey: %s (leave it nil to let the service mask)", audit.ErrorMessage(err))
		}
	}
	if cfg.Topic == "" {
		cfg.Topic = DefaultTopic
	}
	if cfg.RestoreTopic == "" {
		cfg.RestoreTopic = DefaultRestoreTopic
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	c := &Client{cfg: cfg, policy: &mask.Policy{Types: cfg.SensitiveTypes, SecretFields: cfg.SecretFields, Key: cfg.MaskKey}}
	if cfg.IngestURL == "" {
		c.w = kafka.NewWriter(kafka.WriterConfig{Brokers: cfg.Brokers, Topic: cfg.Topic, BatchTimeout: 5 * time.Millisecond})
	}
	return c, nil
}

// NewMaskKey returns a fresh masking key for Config.MaskKey: 32 random
// bytes.
func NewMaskKey() []byte { return mask.NewKey() }

// Close flushes and closes the Kafka writer.
func (c *Client) Close() error {
	if c.w != nil {
		return c.w.Close()
	}
	return nil
}

// Publish sends events and returns once the destination has them: Kafka
// acknowledged every message (keyed by tenant, so one tenant's events
// keep their order), or the ingest endpoint accepted every event (a
// duplicate counts: the id is the idempotency key). A refused event is
// an error naming it and why.
func (c *Client) Publish(ctx context.Context, events ...audit.Event) error {
	if c.w != nil {
		msgs, err := kafka.EventMessages(events)
		if err != nil {
			return err
		}
		return c.w.WriteMessages(ctx, msgs...)
	}
	return c.post(ctx, events)
}

// ingestAnswer is the part of the ingest answer the client reads.
type ingestAnswer struct {
	Items []struct {
		Index  int                `json:"index"`
		ID     string             `json:"id"`
		Status string             `json:"status"`
		Errors []audit.FieldError `json:"errors"`
	} `json:"items"`
}

func (c *Client) post(ctx context.Context, events []audit.Event) error {
	body, err := json.Marshal(events)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(c.cfg.IngestURL, "/")+"/api/audit-events", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.cfg.IngestToken)
	res, err := c.cfg.HTTPClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(io.LimitReader(res.Body, 16<<20))
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("client: ingest answered %s: %s", res.Status, bytes.TrimSpace(out))
	}
	var ans ingestAnswer
	if err := json.Unmarshal(out, &ans); err != nil {
		return fmt.Errorf("client: ingest answer: %w", err)
	}
	var refused []string
	for _, it := range ans.Items {
		if it.Status != "accepted" && it.Status != "duplicate" {
			refused = append(refused, fmt.Sprintf("event %d (%s) %s: %v", it.Index, it.ID, it.Status, it.Errors))
		}
	}
	if len(refused) > 0 {
		return fmt.Errorf("client: %d of %d events not stored: %s", len(refused), len(events), strings.Join(refused, "; "))
	}
	return nil
}
