// Package mappings holds the explicit Elasticsearch mappings as JSON (the
// files beside this one): events.json for every tenant's data stream,
// tenants.json for the tenant directory and export_jobs.json for the
// export jobs.
//
// Every object is "dynamic": "strict", so no key a producer controls can
// create a mapping: diff, before and after are stored in _source but not
// indexed ("enabled": false), and the changed field names are indexed as
// the keyword list changedFields instead. timestamp is an alias of the
// data stream's @timestamp. text holds the words free text matches, as the
// service folds them (the word model, audit/search/words.go), analyzed
// only at their spaces. events.json is generated from the event's table of fields
// (internal/eventmapping); the others are written by hand.
package mappings

//go:generate go run ./internal/genevents

import (
	_ "embed"
	"encoding/json"
)

//go:embed events.json
var events []byte

//go:embed tenants.json
var tenants []byte

//go:embed export_jobs.json
var exportJobs []byte

// Events returns the mappings of an events data stream.
func Events() json.RawMessage { return json.RawMessage(events) }

// Tenants returns the create-index body of the tenant directory.
func Tenants() json.RawMessage { return json.RawMessage(tenants) }

// ExportJobs returns the create-index body of the export jobs. Only the
// fields jobs are looked up by are indexed ("dynamic": false): the rest of
// a job is kept in _source.
func ExportJobs() json.RawMessage { return json.RawMessage(exportJobs) }

//go:embed restores.json
var restores []byte

// Restores returns the create-index body of the restore requests: the
// fields they are looked up by are indexed, the rest kept in _source.
func Restores() json.RawMessage { return json.RawMessage(restores) }

//go:embed periodic.json
var periodic []byte

// Periodic returns the create-index body of the periodic export's state
// and of its records (one index each): tenantId, windowStart and late are
// indexed for the records' listing, the rest kept in _source.
func Periodic() json.RawMessage { return json.RawMessage(periodic) }

//go:embed tlog.json
var tlogIndex []byte

// Tlog returns the create-index body of the verifiable log's index (its
// states, tiles and leaf-id bundles): kind, tenantId and the bundles' ids
// are indexed, the hashes and leaves kept in _source, compressed with
// best_compression (the log is kept as long as the events).
func Tlog() json.RawMessage { return json.RawMessage(tlogIndex) }

//go:embed seal_queue.json
var sealQueue []byte

// SealQueue returns the create-index body of the sealing queue: a ticket
// is chosen by its at and n, its refs kept in _source. A ticket lives
// seconds, so its index keeps the default codec: best_compression cost
// the cluster CPU on every write, read and merge of a document deleted
// a round later (BENCHMARKS.md, log-elasticsearch).
func SealQueue() json.RawMessage { return json.RawMessage(sealQueue) }
