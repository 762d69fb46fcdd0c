package indexer

import "github.com/prometheus/client_golang/prometheus"

type metrics struct {
	consumed, indexed, duplicate, conflict, retried, commits, kafkaErrors prometheus.Counter
	redeliveryChecked                                                     prometheus.Counter
	deadLettered                                                          *prometheus.CounterVec
	bulkLatency                                                           prometheus.Histogram
	lag                                                                   *prometheus.GaugeVec
	storeFull                                                             prometheus.Gauge
}

func newMetrics(reg prometheus.Registerer) *metrics {
	c := func(name, help string) prometheus.Counter {
		return prometheus.NewCounter(prometheus.CounterOpts{Name: "auditlog_indexer_" + name, Help: help})
	}
	m := &metrics{
		consumed:  c("events_consumed_total", "Messages fetched from the audit topic."),
		indexed:   c("events_indexed_total", "Events durably written to the store."),
		duplicate: c("events_duplicate_total", "Events whose id was already stored (a redelivery)."),
		conflict:  c("events_conflict_total", "Events whose id was already stored in the tenant with different content (dead-lettered; first wins)."),
		retried:   c("events_retried_total", "Events whose write (or redelivery lookup) is retried after a transient failure."),
		redeliveryChecked: c("events_redelivery_checked_total",
			"Events looked up across all of their tenant's backing indices before being written, because they may be a redelivery after a crash."),
		commits:     c("commits_total", "Offset commits."),
		kafkaErrors: c("kafka_errors_total", "Failed fetches and commits."),
		deadLettered: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "auditlog_indexer_events_dead_lettered_total", Help: "Messages sent to the dead-letter topic, by code.",
		}, []string{"code"}),
		bulkLatency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "auditlog_indexer_bulk_duration_seconds", Help: "Latency of one store batch write.",
			Buckets: prometheus.ExponentialBuckets(0.005, 2, 12),
		}),
		lag: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "auditlog_indexer_consumer_lag", Help: "Messages of the partition not yet committed by the group (end offset minus committed offset), measured from Kafka every lag interval, whether or not writes succeed.",
		}, []string{"partition"}),
		storeFull: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "auditlog_indexer_store_full", Help: "1 while the store answers that it is out of capacity (an Elasticsearch cluster at its shard limit): the events wait, retried, never dead-lettered.",
		}),
	}
	reg.MustRegister(m.consumed, m.indexed, m.duplicate, m.conflict, m.redeliveryChecked, m.retried, m.commits, m.kafkaErrors, m.deadLettered, m.bulkLatency, m.lag, m.storeFull)
	return m
}
