package elasticsearch

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/auditlog/auditlog/audit/vlog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/ilm"
	"github.com/auditlog/auditlog/mappings"
)

// StoreConfig tunes the store.
type StoreConfig struct {
	// DefaultPlan is given to a tenant first seen; the longest retention
	// by default, since data deleted too early cannot be recovered.
	DefaultPlan audit.Plan
	// Policies overrides the lifecycle of plans (tests use short ones).
	// Unset plans use the policies of ilm/ (elasticsearch/ilm).
	Policies map[audit.Plan]ilm.Policy
	// TenantCacheTTL bounds how long a tenant's plan is cached before it is
	// read again (a plan changed by another process is seen within it).
	TenantCacheTTL time.Duration
	// ScanPageSize is the page size of an export scan (default 2000).
	ScanPageSize int
	// Now is the clock; tests may fix it.
	Now func() time.Time
	// NewTenants is the layout of a tenant first seen (layout.go);
	// dedicated by default.
	NewTenants Layout
	// PromoteAbove, when positive, is how many events of one tenant in a
	// shared stream's write index make the lifecycle pass promote it to
	// a dedicated stream.
	PromoteAbove int64
	// Log makes every write queue its stored events for sealing into
	// their tenants' verifiable logs (tlog_seal.go).
	Log bool
	// Accept tags every event this store writes at its acceptance
	// (vlog.Acceptor), before the cluster sees it: in the document
	// (accept) and in its sealing ticket. The sealer seals only events
	// whose tag verifies. Nil writes no tags: nothing it writes is ever
	// sealed.
	Accept *vlog.Acceptor
	// ILMBackstop, when positive on a cluster with ILM, leaves retention
	// to the lifecycle pass, which records each deletion in the log, and
	// makes ILM a backstop that deletes a backing index this long after
	// the pass would have (ilm.Policy.Backstop). Zero: ILM rolls over and
	// deletes, and its deletions are not recorded.
	ILMBackstop time.Duration
}

// Store is the Elasticsearch event store: one data stream per tenant,
// named <prefix>-events-<plan>-<tenantId>, whose template carries the
// plan's lifecycle; and the tenant directory, the index <prefix>-tenants.
type Store struct {
	c        *Client
	caps     Capabilities
	cfg      StoreConfig
	policies map[audit.Plan]ilm.Policy

	mu      sync.Mutex
	tenants map[string]cachedPlacement
	sweepAt int                  // the cache size at which remember next drops expired entries
	seen    map[string]time.Time // write indices by when a lifecycle pass first saw them

	logs    logCache  // the verifiable log's trees and tiles read (tlog_cache.go)
	refresh refresher // coalesces the refreshes of Fresh reads (refresh.go)

	// afterScan, set by tests only (export_test.go), runs between the
	// lifecycle pass's read of an index it retires and its re-read of the
	// legal holds (settledScan): a hold placed there is a hold placed
	// while the pass runs.
	afterScan func(idx string)
	holdCache holdCache // guarded by mu
}

type cachedPlacement struct {
	placement
	expires time.Time
}

// NewStore returns a store on c for a cluster with caps.
func NewStore(c *Client, caps Capabilities, cfg StoreConfig) (*Store, error) {
	if cfg.DefaultPlan == "" {
		cfg.DefaultPlan = audit.PlanEnterprise
	}
	if _, err := audit.ParsePlan(string(cfg.DefaultPlan)); err != nil {
		return nil, err
	}
	if cfg.NewTenants == "" {
		cfg.NewTenants = LayoutDedicated
	}
	if _, err := ParseLayout(string(cfg.NewTenants)); err != nil {
		return nil, err
	}
	if cfg.TenantCacheTTL == 0 {
		cfg.TenantCacheTTL = 30 * time.Second
	}
	if cfg.ScanPageSize <= 0 {
		cfg.ScanPageSize = 2000
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	s := &Store{c: c, caps: caps, cfg: cfg, policies: map[audit.Plan]ilm.Policy{}, tenants: map[string]cachedPlacement{}, seen: map[string]time.Time{}}
	for _, plan := range audit.Plans {
		p, ok := cfg.Policies[plan]
		if !ok {
			var err error
			if p, err = ilm.For(plan); err != nil {
				return nil, err
			}
		}
		s.policies[plan] = p
	}
	return s, nil
}

// ILMOwnsRetention reports whether the cluster's ILM rolls over and
// deletes (it has ILM, not as a backstop); else the lifecycle pass does.
func (s *Store) ILMOwnsRetention() bool { return s.caps.ILM && s.cfg.ILMBackstop <= 0 }

// Capabilities returns what the cluster supports.
func (s *Store) Capabilities() Capabilities { return s.caps }

// Client returns the underlying client.
func (s *Store) Client() *Client { return s.c }

func (s *Store) prefix() string { return s.c.cfg.IndexPrefix }

// StreamName is the data stream of a tenant on a plan.
func (s *Store) StreamName(plan audit.Plan, tenantID string) string {
	return s.prefix() + "-events-" + string(plan) + "-" + tenantID
}

// TenantPattern matches every data stream of a tenant, whatever the plan
// it was written under: queries keep seeing all of a tenant's data across
// plan changes.
func (s *Store) TenantPattern(tenantID string) string {
	return s.prefix() + "-events-*-" + tenantID
}

// AllStreamsPattern matches every events data stream of this service.
func (s *Store) AllStreamsPattern() string { return s.prefix() + "-events-*" }

// TemplateName is the index template of a plan.
func (s *Store) TemplateName(plan audit.Plan) string { return s.prefix() + "-events-" + string(plan) }

// PolicyName is the ILM policy of a plan.
func (s *Store) PolicyName(plan audit.Plan) string { return s.prefix() + "-" + string(plan) }

// TenantsIndex is the tenant directory.
func (s *Store) TenantsIndex() string { return s.prefix() + "-tenants" }

// ExportJobsIndex is the index of the export jobs.
func (s *Store) ExportJobsIndex() string { return s.prefix() + "-export-jobs" }

// parseStream splits a data stream name into plan and tenant; the tenant
// is "" for a plan's shared stream.
func (s *Store) parseStream(name string) (audit.Plan, string, bool) {
	rest, ok := strings.CutPrefix(name, s.prefix()+"-events-")
	if !ok {
		return "", "", false
	}
	plan, tenant, ok := strings.Cut(rest, "-")
	if !ok || !audit.Plan(plan).Valid() {
		return "", "", false
	}
	if tenant == "shared" {
		return audit.Plan(plan), "", true
	}
	if !audit.ValidUUID(tenant) {
		return "", "", false
	}
	return audit.Plan(plan), tenant, true
}

// TemplateBody is the composable index template of a plan's data streams.
// Its priority (200) beats the built-in templates (100). Where the cluster
// has ILM, the settings name the plan's policy.
func (s *Store) TemplateBody(plan audit.Plan) json.RawMessage {
	return s.templateBody(plan, []string{s.TemplateName(plan) + "-*"}, map[string]any{}, 200)
}

// SharedTemplateName is the index template of a plan's shared stream.
func (s *Store) SharedTemplateName(plan audit.Plan) string { return s.TemplateName(plan) + "-shared" }

// SharedTemplateBody is the template of a plan's shared stream: the plan's
// template (the same settings, mappings and policy) for that one name,
// at a higher priority, with custom routing, which the stream then
// requires on every write (layout.go).
func (s *Store) SharedTemplateBody(plan audit.Plan) json.RawMessage {
	return s.templateBody(plan, []string{s.SharedStreamName(plan)}, map[string]any{"allow_custom_routing": true}, 210)
}

func (s *Store) templateBody(plan audit.Plan, patterns []string, dataStream map[string]any, priority int) json.RawMessage {
	settings := s.streamSettings()
	if s.caps.ILM {
		settings["index.lifecycle.name"] = s.PolicyName(plan)
	}
	body, _ := json.Marshal(map[string]any{
		"index_patterns": patterns,
		"data_stream":    dataStream,
		"priority":       priority,
		"template": map[string]any{
			"settings": settings,
			"mappings": mappings.Events(),
		},
		"_meta": map[string]any{"managed_by": "auditlog", "plan": plan},
	})
	return body
}

// streamSettings are the index settings of every events stream, before
// its plan's lifecycle policy. Index sorting in the default order (newest
// first, id as the tiebreaker) lets the default page and its cursor pages
// stop early instead of sorting every document of the tenant.
func (s *Store) streamSettings() map[string]any {
	return map[string]any{
		"number_of_shards":   1,
		"number_of_replicas": s.c.cfg.Replicas,
		"codec":              "best_compression",
		"sort.field":         []string{"@timestamp", "id"},
		"sort.order":         []string{"desc", "desc"},
	}
}

// createIndex creates the index name with body, unless it exists.
func (s *Store) createIndex(ctx context.Context, name string, body []byte) error {
	res, err := s.c.Do(ctx, http.MethodPut, "/"+name, body)
	if err != nil {
		return err
	}
	if res.Status != http.StatusOK && !strings.Contains(string(res.Body), "resource_already_exists_exception") {
		return StatusError(http.MethodPut, "/"+name, res)
	}
	return nil
}

// Bootstrap installs, idempotently, the lifecycle policies (where the
// cluster has ILM), one index template per plan, the tenant directory and
// the export jobs index.
func (s *Store) Bootstrap(ctx context.Context) error {
	for _, plan := range audit.Plans {
		if s.caps.ILM {
			body := s.policies[plan].Body
			if s.cfg.ILMBackstop > 0 {
				body = s.policies[plan].Backstop(s.cfg.ILMBackstop)
			}
			if err := s.c.DoJSON(ctx, http.MethodPut, "/_ilm/policy/"+s.PolicyName(plan), body, nil); err != nil {
				return fmt.Errorf("installing ILM policy %s: %w", s.PolicyName(plan), err)
			}
		}
		if err := s.c.DoJSON(ctx, http.MethodPut, "/_index_template/"+s.TemplateName(plan), s.TemplateBody(plan), nil); err != nil {
			return fmt.Errorf("installing index template %s: %w", s.TemplateName(plan), err)
		}
		if err := s.c.DoJSON(ctx, http.MethodPut, "/_index_template/"+s.SharedTemplateName(plan), s.SharedTemplateBody(plan), nil); err != nil {
			return fmt.Errorf("installing index template %s: %w", s.SharedTemplateName(plan), err)
		}
	}
	if err := s.upgradeStreamMappings(ctx); err != nil {
		return err
	}
	for _, ix := range []struct {
		name, what string
		body       json.RawMessage
	}{{s.TenantsIndex(), "the tenant directory", mappings.Tenants()}, {s.ExportJobsIndex(), "the export jobs index", mappings.ExportJobs()},
		{s.KeysIndex(), "the keys index", json.RawMessage(`{"mappings":{"dynamic":false}}`)},
		{s.SavedSearchesIndex(), "the saved searches index", json.RawMessage(`{"mappings":{"dynamic":false}}`)},
		{s.StreamsIndex(), "the streams index", streamsMapping},
		{s.RestoresIndex(), "the restores index", mappings.Restores()},
		{s.TlogIndex(), "the verifiable log index", mappings.Tlog()},
		{s.SealQueueIndex(), "the sealing queue", mappings.SealQueue()},
		{s.PeriodicIndex(), "the periodic export index", mappings.Periodic()},
		{s.PeriodicRecordsIndex(), "the periodic export records index", mappings.Periodic()}} {
		if err := s.createIndex(ctx, ix.name, ix.body); err != nil {
			return fmt.Errorf("creating %s: %w", ix.what, err)
		}
	}
	if err := s.putReclaimSetting(ctx); err != nil {
		return err
	}
	// A directory created before the layouts gains their fields.
	var dir struct {
		Mappings json.RawMessage `json:"mappings"`
	}
	if err := json.Unmarshal(mappings.Tenants(), &dir); err != nil {
		return err
	}
	if err := s.c.DoJSON(ctx, http.MethodPut, "/"+s.TenantsIndex()+"/_mapping", dir.Mappings, nil); err != nil {
		return fmt.Errorf("upgrading the mapping of the tenant directory: %w", err)
	}
	return nil
}

// upgradeStreamMappings puts the current events mapping on every existing
// data stream (all its backing indices): a template only reaches indices
// created after it, and the mapping is strict, so without this an event
// with a field added since (restoredFrom) would be refused by a stream
// created before. Adding fields is all a mapping change may do here;
// Elasticsearch refuses the rest, and the error names the stream. The
// fields whose doc values were dropped since are left out of it
// (mappings.EventsUpgrade): each index keeps them as it was made.
func (s *Store) upgradeStreamMappings(ctx context.Context) error {
	err := s.c.DoJSON(ctx, http.MethodPut, "/"+s.AllStreamsPattern()+"/_mapping?allow_no_indices=true&expand_wildcards=all", mappings.EventsUpgrade(), nil)
	if err != nil {
		return fmt.Errorf("upgrading the mappings of the existing data streams: %w", err)
	}
	return nil
}

// Plan implements audit.TenantDirectory.
func (s *Store) Plan(ctx context.Context, tenantID string) (audit.Plan, error) {
	p, err := s.place(ctx, tenantID)
	return p.Plan, err
}

// EnsureTenant implements audit.TenantDirectory. The entry is created with
// op_type=create, so concurrent first events agree on one plan.
func (s *Store) EnsureTenant(ctx context.Context, tenantID string, def audit.Plan) (audit.Plan, error) {
	p, err := s.ensurePlacement(ctx, tenantID, def)
	return p.Plan, err
}

// ensurePlacement is EnsureTenant with the whole entry.
func (s *Store) ensurePlacement(ctx context.Context, tenantID string, def audit.Plan) (placement, error) {
	p, err := s.place(ctx, tenantID)
	if audit.ErrorCode(err) != audit.ENOTFOUND {
		return p, err
	}
	now := s.cfg.Now().UTC()
	p = s.newPlacement(def)
	// No refresh: the directory is read by id (real time), and a refresh
	// per new tenant would slow a burst of first events.
	_, created, err := s.createDoc(ctx, s.TenantsIndex(), tenantID, "tenant",
		map[string]any{"tenantId": tenantID, "plan": def, "layout": p.Layout, "sharedIn": p.SharedIn, "createdAt": now, "updatedAt": now}, false)
	if err != nil {
		return placement{}, err
	}
	if !created {
		return s.place(ctx, tenantID)
	}
	s.remember(tenantID, p)
	return p, nil
}

// SetPlan implements audit.TenantDirectory. Where the cluster has ILM, the
// new plan's policy is set on every dedicated backing index the tenant
// already has (under any plan); otherwise the lifecycle worker reads the
// plan from the directory on its next pass, so the new retention applies
// either way. A tenant with data in a shared stream has it copied to where
// it now writes (consolidate); a copy that fails is finished by the
// lifecycle pass, and the error says so.
func (s *Store) SetPlan(ctx context.Context, tenantID string, plan audit.Plan) error {
	if err := audit.CheckPlanChange(tenantID, plan); err != nil {
		return err
	}
	old, err := s.readPlacement(ctx, tenantID)
	known := err == nil
	if err != nil && audit.ErrorCode(err) != audit.ENOTFOUND {
		return err
	}
	now := s.cfg.Now().UTC()
	doc := map[string]any{"plan": plan, "updatedAt": now}
	var moved []audit.Plan
	if known && old.SharedIn != "" && old.SharedIn != plan {
		moved = append(moved, old.SharedIn)
		doc["sharedIn"] = nil
		if old.shared() {
			doc["sharedIn"] = plan
		}
		doc["movedFrom"], doc["movedAt"] = old.SharedIn, now
	}
	if known && old.MovedFrom != "" && old.MovedFrom != plan && old.MovedFrom != old.SharedIn {
		moved = append(moved, old.MovedFrom) // a move not yet settled
	}
	fresh := s.newPlacement(plan)
	if err := s.c.DoJSON(ctx, http.MethodPost, "/"+s.TenantsIndex()+"/_update/"+tenantID+"?refresh=true",
		map[string]any{
			"doc": doc,
			"upsert": map[string]any{"tenantId": tenantID, "plan": plan, "layout": fresh.Layout, "sharedIn": fresh.SharedIn,
				"createdAt": now, "updatedAt": now},
		}, nil); err != nil {
		return err
	}
	s.forget(tenantID)
	for _, from := range moved {
		if _, err := s.consolidate(ctx, tenantID, from); err != nil {
			return fmt.Errorf("plan changed; copying the tenant's events out of the %s shared stream failed (the lifecycle pass will finish it): %w", from, err)
		}
	}
	if !s.caps.ILM {
		return nil
	}
	streams, err := s.resolveStreams(ctx, s.TenantPattern(tenantID))
	if err != nil {
		return err
	}
	for _, st := range streams {
		if err := s.c.DoJSON(ctx, http.MethodPut, "/"+st.Name+"/_settings",
			map[string]any{"index.lifecycle.name": s.PolicyName(plan)}, nil); err != nil {
			return fmt.Errorf("applying policy %s to %s: %w", s.PolicyName(plan), st.Name, err)
		}
	}
	return nil
}

func (s *Store) cached(tenantID string) (placement, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.tenants[tenantID]
	if !ok || s.cfg.Now().After(c.expires) {
		return placement{}, false
	}
	return c.placement, true
}

// remember caches a placement for TenantCacheTTL. Expired entries are
// swept whenever the cache has doubled since the last sweep, so it holds
// about the tenants seen within a TTL, never every tenant ever seen.
func (s *Store) remember(tenantID string, p placement) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.cfg.Now()
	if len(s.tenants) >= s.sweepAt {
		for k, c := range s.tenants {
			if now.After(c.expires) {
				delete(s.tenants, k)
			}
		}
		s.sweepAt = max(1024, 2*len(s.tenants))
	}
	s.tenants[tenantID] = cachedPlacement{placement: p, expires: now.Add(s.cfg.TenantCacheTTL)}
}

func (s *Store) forget(tenantID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.tenants, tenantID)
}

// stream is a data stream with its backing indices, the write index last.
type stream struct {
	Name           string   `json:"name"`
	BackingIndices []string `json:"backing_indices"`
}

// resolveStreams lists the data streams matching pattern. It uses
// _resolve/index, which every 8.x server has (the data-stream API may be
// missing).
func (s *Store) resolveStreams(ctx context.Context, pattern string) ([]stream, error) {
	var out struct {
		DataStreams []stream `json:"data_streams"`
	}
	res, err := s.c.Do(ctx, http.MethodGet, "/_resolve/index/"+pattern+"?expand_wildcards=open", nil)
	if err != nil {
		return nil, err
	}
	if res.Status == http.StatusNotFound {
		return nil, nil
	}
	if res.Status != http.StatusOK {
		return nil, StatusError(http.MethodGet, "_resolve/index", res)
	}
	if err := json.Unmarshal(res.Body, &out); err != nil {
		return nil, audit.Wrap(audit.EINTERNAL, err, "decoding _resolve/index")
	}
	return out.DataStreams, nil
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
