package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"time"

	"github.com/auditlog/auditlog/audit/restorejob"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/internal/backoff"
	"github.com/auditlog/auditlog/kafka"
	"github.com/auditlog/auditlog/restore"
)

// RestoreConfig is the restore section of serve: where restore requests
// go. The webhook when its URL is set; otherwise Kafka when brokers are
// (AUDITLOG_RESTORE_BROKERS, by default AUDITLOG_KAFKA_BROKERS);
// otherwise an outbox directory, like the e-mail outbox.
type RestoreConfig struct {
	Topic      string
	Brokers    string
	WebhookURL string
	Secret     string
	Outbox     string
}

// minRestoreSecret is the shortest signing secret accepted.
const minRestoreSecret = 32

func (b *binder) restore(c *Config) {
	r := &c.Restore
	b.str(&r.WebhookURL, "restore-webhook-url", "AUDITLOG_RESTORE_WEBHOOK_URL", "",
		"URL that restore requests are POSTed to, signed (chosen over Kafka when set)")
	b.secret(&r.Secret, "restore-secret", "AUDITLOG_RESTORE_SECRET",
		"key (at least 32 bytes) of the HMAC-SHA256 signature of restore requests; required with the webhook, optional with Kafka")
	b.str(&r.Brokers, "restore-brokers", "AUDITLOG_RESTORE_BROKERS", "",
		"Kafka brokers that restore requests are published to, comma-separated (default AUDITLOG_KAFKA_BROKERS)")
	b.str(&r.Topic, "restore-topic", "AUDITLOG_RESTORE_TOPIC", restore.DefaultTopic, "Kafka topic of restore requests, keyed by tenant")
	b.str(&r.Outbox, "restore-outbox", "AUDITLOG_RESTORE_OUTBOX", "",
		"directory that restore requests are written to when neither a webhook nor Kafka is set (default <data-dir>/restore-outbox)")
}

// check reports the section's problems, each naming its variable.
func (r RestoreConfig) check() []string {
	var errs []string
	if r.WebhookURL != "" {
		u, err := url.Parse(r.WebhookURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Sprintf("AUDITLOG_RESTORE_WEBHOOK_URL=%q: want an http or https URL", maskURL(r.WebhookURL)))
		}
		if r.Secret == "" {
			errs = append(errs, "AUDITLOG_RESTORE_SECRET must be set with AUDITLOG_RESTORE_WEBHOOK_URL: the receiver verifies each request with it")
		}
	}
	if r.Secret != "" && len(r.Secret) < minRestoreSecret {
		errs = append(errs, fmt.Sprintf("AUDITLOG_RESTORE_SECRET is %d bytes: want at least %d", len(r.Secret), minRestoreSecret))
	}
	if !kafkaTopicName(r.Topic) {
		errs = append(errs, fmt.Sprintf("AUDITLOG_RESTORE_TOPIC=%q: a topic name must not be empty and is 1 to 249 of a-z A-Z 0-9 . _ -", r.Topic))
	}
	return errs
}

// restoreService builds the delivery of restore requests, starts its
// worker and returns what the API needs.
func (m *Main) restoreService(ctx context.Context, store eventStore) (api.RestoreDeps, error) {
	send, err := m.restoreSender(ctx)
	if err != nil {
		return api.RestoreDeps{}, err
	}
	w := restore.NewWorker(store, send, m.Logger, m.Registry)
	m.Logger.Info("restore requests are delivered", "to", send.Destination())
	m.background(ctx, "restore delivery", w.Run)
	plan, err := m.defaultPlan()
	if err != nil {
		return api.RestoreDeps{}, err
	}
	return api.RestoreDeps{Store: store, Tenants: store, DefaultPlan: plan, Notify: w.Notify}, nil
}

func (m *Main) restoreSender(ctx context.Context) (restore.Sender, error) {
	r := m.Config.Restore
	brokers := splitList(r.Brokers)
	if len(brokers) == 0 {
		brokers = splitList(m.Config.Kafka.Brokers)
	}
	switch {
	case r.WebhookURL != "":
		return &restore.Webhook{URL: r.WebhookURL, Secret: []byte(r.Secret), Client: &http.Client{Timeout: restorejob.ClaimLease / 3}}, nil
	case len(brokers) > 0:
		if r.Secret == "" {
			m.Logger.Warn("AUDITLOG_RESTORE_SECRET is not set: restore requests on Kafka are not signed")
		}
		k := restore.NewKafka(brokers, r.Topic, []byte(r.Secret))
		m.onClose(func(context.Context) error { return k.Close() })
		// The topic is created in the background: Kafka may start after
		// serve, and the worker retries until it can publish.
		m.background(ctx, "restore topic", func(bg context.Context) {
			_ = backoff.Retry(bg, backoff.New(5*time.Second, 5*time.Second),
				func(err error) {
					m.Logger.Warn("creating the restore topic failed; retrying", "topic", r.Topic, "err", err)
				},
				func() error {
					return kafka.EnsureTopics(bg, brokers, kafka.TopicSpec{Name: r.Topic, Partitions: m.Config.Kafka.Partitions})
				})
		})
		return k, nil
	}
	dir := r.Outbox
	if dir == "" {
		dir = filepath.Join(m.Config.DataDir, "restore-outbox")
	}
	m.Logger.Info("no restore webhook (AUDITLOG_RESTORE_WEBHOOK_URL) nor Kafka: restore requests are written into the outbox", "outbox", dir)
	return &restore.Outbox{Dir: dir}, nil
}

// kafkaTopicName reports whether s is a legal Kafka topic name.
func kafkaTopicName(s string) bool {
	if s == "" || len(s) > 249 || s == "." || s == ".." {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
