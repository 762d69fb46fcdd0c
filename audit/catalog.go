package audit

// CatalogEntry maps one recorded occurrence of spec §6 to the action,
// resource.type and category its event carries (shared/DESIGN.md).
type CatalogEntry struct {
	Occurrence   string
	Action       Action
	ResourceType string
	Category     Category
	// BeforeAfter is set for sensitive changes whose complete state
	// before and after is kept (spec §1.3).
	BeforeAfter bool
	// Outcome, when set, is the outcome this occurrence carries.
	Outcome Outcome
}

// Resource types of the catalog. resource.type is an open set; these are
// the ones the platform is known to emit.
const (
	ResourceAgent           = "agent"
	ResourceQueue           = "queue"
	ResourceIVR             = "ivr"
	ResourceRecordingPolicy = "recording_policy"
	ResourceUserRole        = "user_role"
	ResourceIntegration     = "integration"
	ResourceDID             = "did"
	ResourceRecording       = "recording"
	ResourceTranscript      = "transcript"
	ResourceAuditExport     = "audit_export"
	ResourceAuditLog        = "audit_log"
	ResourceSession         = "session"
	ResourceUserMFA         = "user_mfa"
	ResourceUserCredentials = "user_credentials"
	ResourceCRMConnection   = "crm_connection"
	ResourceTranscriptPush  = "transcript_push"
	ResourceWebhookDelivery = "webhook_delivery"
	// ResourceRestoreRequest is the service's own record of a restore
	// asked through it (not a spec §6 occurrence; docs/api.md's restore
	// section documents it).
	ResourceRestoreRequest = "restore_request"
	// ResourceAuditStream is the service's own record of a change of one
	// of the tenant's streams (docs/streams.md).
	ResourceAuditStream = "audit_stream"
)

// Catalog is the event catalog: every occurrence the platform records
// (spec §1.1, §6), in the order of docs/event.md's table. Operator-team access
// is not a row: any of these performed by a superadmin carries
// crossTenant true, category cross_tenant and a reason.
var Catalog = []CatalogEntry{
	{Occurrence: "Agent created", Action: ActionCreate, ResourceType: ResourceAgent, Category: CategoryConfiguration},
	{Occurrence: "Agent deleted", Action: ActionDelete, ResourceType: ResourceAgent, Category: CategoryConfiguration},
	{Occurrence: "Queue created", Action: ActionCreate, ResourceType: ResourceQueue, Category: CategoryConfiguration},
	{Occurrence: "Queue modified", Action: ActionUpdate, ResourceType: ResourceQueue, Category: CategoryConfiguration},
	{Occurrence: "Queue deleted", Action: ActionDelete, ResourceType: ResourceQueue, Category: CategoryConfiguration},
	{Occurrence: "IVR published", Action: ActionUpdate, ResourceType: ResourceIVR, Category: CategoryConfiguration, BeforeAfter: true},
	{Occurrence: "Recording policy changed", Action: ActionUpdate, ResourceType: ResourceRecordingPolicy, Category: CategoryConfiguration, BeforeAfter: true},
	{Occurrence: "User role changed", Action: ActionUpdate, ResourceType: ResourceUserRole, Category: CategoryConfiguration, BeforeAfter: true},
	{Occurrence: "Integration added", Action: ActionCreate, ResourceType: ResourceIntegration, Category: CategoryConfiguration},
	{Occurrence: "Integration removed", Action: ActionDelete, ResourceType: ResourceIntegration, Category: CategoryConfiguration},
	{Occurrence: "DID assigned", Action: ActionCreate, ResourceType: ResourceDID, Category: CategoryConfiguration},
	{Occurrence: "DID released", Action: ActionDelete, ResourceType: ResourceDID, Category: CategoryConfiguration},
	{Occurrence: "Recording downloaded", Action: ActionAccess, ResourceType: ResourceRecording, Category: CategorySensitiveAccess},
	{Occurrence: "Transcript read", Action: ActionAccess, ResourceType: ResourceTranscript, Category: CategorySensitiveAccess},
	{Occurrence: "CSV exported", Action: ActionAccess, ResourceType: ResourceAuditExport, Category: CategorySensitiveAccess},
	{Occurrence: "Audit log read by the operator team", Action: ActionAccess, ResourceType: ResourceAuditLog, Category: CategoryCrossTenant},
	{Occurrence: "Login", Action: ActionAccess, ResourceType: ResourceSession, Category: CategorySecurity, Outcome: OutcomeSuccess},
	{Occurrence: "Failed login attempt", Action: ActionAccess, ResourceType: ResourceSession, Category: CategorySecurity, Outcome: OutcomeFailure},
	{Occurrence: "Logout", Action: ActionDelete, ResourceType: ResourceSession, Category: CategorySecurity},
	{Occurrence: "Session forced", Action: ActionDelete, ResourceType: ResourceSession, Category: CategorySecurity},
	{Occurrence: "MFA configured", Action: ActionUpdate, ResourceType: ResourceUserMFA, Category: CategorySecurity},
	{Occurrence: "Password changed", Action: ActionUpdate, ResourceType: ResourceUserCredentials, Category: CategorySecurity},
	{Occurrence: "CRM OAuth connection", Action: ActionCreate, ResourceType: ResourceCRMConnection, Category: CategoryIntegration},
	{Occurrence: "Transcript push", Action: ActionCreate, ResourceType: ResourceTranscriptPush, Category: CategoryIntegration},
	{Occurrence: "Webhook sent", Action: ActionCreate, ResourceType: ResourceWebhookDelivery, Category: CategoryIntegration},
}

// NotRecorded lists what is never recorded (spec §1.2).
var NotRecorded = []string{
	"Dashboard page views",
	"Real-time wallboard refreshes",
	"Softphone heartbeats",
	"Calls (they live in the call-detail record store)",
}

// CategoryOf returns the catalog category of an (action, resource.type)
// pair, and false when the pair is not in the catalog.
func CategoryOf(a Action, resourceType string) (Category, bool) {
	for _, c := range Catalog {
		if c.Action == a && c.ResourceType == resourceType {
			return c.Category, true
		}
	}
	return "", false
}
