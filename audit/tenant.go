package audit

import (
	"context"
	"strings"
	"time"
)

// NormalizeTenantID returns a tenant id in its one stored form: trimmed
// and lower-cased, since a tenant id is case-insensitive (a token's
// "ACME" and an event's "acme" are one tenant).
//
// The rule: every tenant id is normalised once, where it enters the
// service (Event.Normalize for ingest, Filter.Normalize for queries, the
// principal the API builds from a token, the flags of the commands), and
// every layer below (services and stores) receives, stores and matches it
// as given, never lower-casing it again. Each method below that takes a
// tenantID takes it in this form.
func NormalizeTenantID(id string) string { return toLower(strings.TrimSpace(id)) }

// TenantDirectory maps tenants to plans. Tenant ids are in the form of
// NormalizeTenantID.
type TenantDirectory interface {
	// Plan returns the tenant's plan, or ENOTFOUND for an unknown tenant.
	Plan(ctx context.Context, tenantID string) (Plan, error)
	// EnsureTenant returns the tenant's plan, registering the tenant with
	// def first when it is unknown. Concurrent calls agree on one plan.
	EnsureTenant(ctx context.Context, tenantID string, def Plan) (Plan, error)
	// SetPlan changes the tenant's plan (registering it if needed), and
	// applies the new retention to the tenant's data already stored. It
	// returns EINVALID for a bad tenant id or plan.
	SetPlan(ctx context.Context, tenantID string, plan Plan) error
	// Tenants returns at most limit tenants of the directory whose id
	// sorts after after ("" for the first page), in id order: keyset
	// paging, so listing every tenant holds one page at a time. It returns
	// EINVALID for a limit outside 1..MaxTenantPage.
	Tenants(ctx context.Context, after string, limit int) ([]Tenant, error)
}

// Tenant is one entry of the tenant directory.
type Tenant struct {
	ID        string    `json:"tenantId"`
	Plan      Plan      `json:"plan"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// MaxTenantPage bounds one page of TenantDirectory.Tenants.
const MaxTenantPage = 1000

// CheckTenantPage validates the limit of TenantDirectory.Tenants.
func CheckTenantPage(limit int) error {
	if limit < 1 || limit > MaxTenantPage {
		return Errorf(EINVALID, "limit %d: want 1 to %d", limit, MaxTenantPage)
	}
	return nil
}
