package hold

import "github.com/auditlog/auditlog/audit"

// Role is the token role that places, changes and releases holds: a
// tenant's counsel or compliance officer, not its administrators, and
// never the operator team (a hold is the tenant's, and a release by the
// operator team would let retention purge the tenant's evidence).
const Role = "legal_hold"

// Authorize says whether p may place, change or release a hold of
// tenantID. Errors: EFORBIDDEN naming why.
func Authorize(p audit.Principal, tenantID string) error {
	switch {
	case p.CrossTenant():
		return audit.Errorf(audit.EFORBIDDEN, "the operator team cannot place, change or release a tenant's legal hold")
	case p.TenantID != tenantID:
		return audit.Errorf(audit.EFORBIDDEN, "a hold of another tenant")
	case p.Role != Role:
		return audit.Errorf(audit.EFORBIDDEN, "placing, changing and releasing legal holds takes the %s role", Role)
	}
	return nil
}

// CanRead says whether p may read tenantID's holds and their report: its
// holders and its administrators. Errors: EFORBIDDEN.
func CanRead(p audit.Principal, tenantID string) error {
	if p.TenantID == tenantID && (p.Role == Role || p.Role == audit.RoleAdmin) {
		return nil
	}
	return audit.Errorf(audit.EFORBIDDEN, "a tenant's legal holds are read by its administrators and holders")
}
