package audit

// Principal is the authenticated caller. The tenant always comes from the
// credentials, never from a query parameter.
type Principal struct {
	UserID   string
	Email    string
	Role     string
	TenantID string
	// Reason is the declared reason of an operator-team (superadmin)
	// access; required for superadmin.
	Reason string
}

// Roles that may call the API. RoleIngest is a service credential that
// may only write events; tenant roles may never write.
const (
	RoleIngest = "ingest"
)

// CrossTenant reports whether the caller acts as the operator team.
func (p Principal) CrossTenant() bool { return p.Role == RoleSuperadmin }
