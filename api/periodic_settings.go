package api

import (
	"encoding/json"
	"io"
	"net/http"

	"github.com/auditlog/auditlog/audit/periodic"

	"github.com/gin-gonic/gin"

	"github.com/auditlog/auditlog/audit"
)

// maxSettingsBody bounds the body of a settings change.
const maxSettingsBody = 4 << 10

// PeriodicSettingsView is a tenant's periodic export as the settings
// endpoints show it.
type PeriodicSettingsView struct {
	Enabled    string           `json:"enabled"` // on, off or plan
	Active     bool             `json:"active"`  // whether windows are exported now
	Interval   string           `json:"interval"`
	Bucket     string           `json:"bucket"` // "" for the deployment's
	Prefix     string           `json:"prefix"` // "" for the deployment's
	NextWindow *audit.Timestamp `json:"nextWindow"`
	LastError  string           `json:"lastError"`
}

func settingsView(st *periodic.State, plan audit.Plan) PeriodicSettingsView {
	v := PeriodicSettingsView{Enabled: "plan", Active: st.Active(plan), Interval: string(st.Interval), Bucket: st.Bucket, Prefix: st.Prefix, LastError: st.LastError}
	if st.Enabled != nil {
		v.Enabled = map[bool]string{true: "on", false: "off"}[*st.Enabled]
	}
	if v.Interval == "" {
		v.Interval = string(periodic.Daily)
	}
	if !st.NextStart.IsZero() {
		v.NextWindow = millis(&st.NextStart)
	}
	return v
}

// tenantPlan is the caller's tenant's plan (the default one for a tenant
// not in the directory yet).
func (s *Server) tenantPlan(c *gin.Context) (audit.Plan, error) {
	plan, err := s.periodic.Tenants.Plan(c.Request.Context(), principalOf(c).TenantID)
	if audit.ErrorCode(err) == audit.ENOTFOUND {
		return s.periodic.DefaultPlan, nil
	}
	return plan, err
}

// getPeriodicSettings shows the caller's tenant's periodic export.
func (s *Server) getPeriodicSettings(c *gin.Context) {
	if err := s.recordAccess(c, "periodic export settings", nil); err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	st, err := s.periodic.Store.PeriodicState(c.Request.Context(), principalOf(c).TenantID)
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	plan, err := s.tenantPlan(c)
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	c.JSON(http.StatusOK, settingsView(&st, plan))
}

// putPeriodicSettings changes them: the operator team only (superadmin,
// with a declared reason), recorded in the tenant's log as an update
// with the settings before and after.
func (s *Server) putPeriodicSettings(c *gin.Context) {
	if principalOf(c).Role != audit.RoleSuperadmin {
		writeError(c, s.deps.Logger, audit.Errorf(audit.EFORBIDDEN, "only the operator team (superadmin) changes a tenant's periodic export"))
		return
	}
	ps, err := parseSettings(c)
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	plan, err := s.tenantPlan(c)
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	ctx, tenant := c.Request.Context(), principalOf(c).TenantID
	for attempt := 0; ; attempt++ {
		st, err := s.periodic.Store.PeriodicState(ctx, tenant)
		if err != nil {
			writeError(c, s.deps.Logger, err)
			return
		}
		before, base := settingsView(&st, plan), st.Rev
		st.Apply(ps)
		after := settingsView(&st, plan)
		e := s.selfEvent(c, audit.ActionUpdate, audit.Resource{Type: audit.ResourceAuditExport, ID: tenant}, nil)
		e.Before, e.After = mustRaw(before), mustRaw(after)
		// One change of one revision is one record: parallel identical
		// changes (one of which wins the compare-and-set below) write it
		// once.
		e.ID = audit.DerivedID("periodic-settings", tenant, base, string(e.Before), string(e.After))
		if err := s.writeSelfOnce(c, e); err != nil {
			writeError(c, s.deps.Logger, err)
			return
		}
		err = s.periodic.Store.PutPeriodicState(ctx, &st)
		if audit.ErrorCode(err) == audit.ECONFLICT && attempt < 10 {
			continue // a replica's pass moved the state: apply again
		}
		if err != nil {
			writeError(c, s.deps.Logger, err)
			return
		}
		c.JSON(http.StatusOK, after)
		return
	}
}

func mustRaw(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// parseSettings reads a settings change strictly: an unknown field or a
// wrong type or value is a 400 naming it; an empty body too (a change
// must say what it changes).
func parseSettings(c *gin.Context) (periodic.Settings, error) {
	var ps periodic.Settings
	empty, err := decodeStrict(c, maxSettingsBody, "settings", &ps)
	if err != nil {
		return ps, err
	}
	if empty {
		return ps, bodyError(io.EOF, "settings")
	}
	return ps, ps.Validate()
}
