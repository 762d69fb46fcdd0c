package ocsf

// Event is an OCSF event of one of the three classes (the attributes of
// the others are left empty and out of the JSON).
type Event struct {
	ClassUID     int    `json:"class_uid"`
	ClassName    string `json:"class_name"`
	CategoryUID  int    `json:"category_uid"`
	CategoryName string `json:"category_name"`
	ActivityID   int    `json:"activity_id"`
	ActivityName string `json:"activity_name"`
	TypeUID      int64  `json:"type_uid"`
	TypeName     string `json:"type_name"`
	Time         int64  `json:"time"` // milliseconds since the epoch
	TimeDT       string `json:"time_dt"`
	Severity     string `json:"severity"`
	SeverityID   int    `json:"severity_id"`
	Status       string `json:"status"`
	StatusID     int    `json:"status_id"`
	Message      string `json:"message,omitempty"`

	Metadata    Metadata     `json:"metadata"`
	Actor       *Actor       `json:"actor,omitempty"`
	SrcEndpoint *Endpoint    `json:"src_endpoint,omitempty"`
	HTTPRequest *HTTPRequest `json:"http_request,omitempty"`

	// Authentication and Account Change: the user who logged in or out,
	// or whose account changed.
	User    *User    `json:"user,omitempty"`
	Service *Service `json:"service,omitempty"` // Authentication: what was logged in to
	Session *Session `json:"session,omitempty"` // Authentication

	// API Activity.
	API       *API       `json:"api,omitempty"`
	Resources []Resource `json:"resources,omitempty"`

	Unmapped map[string]any `json:"unmapped,omitempty"`
}

// Metadata is OCSF's metadata object.
type Metadata struct {
	Version        string   `json:"version"`
	Product        Product  `json:"product"`
	UID            string   `json:"uid,omitempty"`
	TenantUID      string   `json:"tenant_uid"`
	Sequence       uint64   `json:"sequence"`
	CorrelationUID string   `json:"correlation_uid,omitempty"`
	LogName        string   `json:"log_name"`
	OriginalTime   string   `json:"original_time"`
	Profiles       []string `json:"profiles"`
}

// Product names what logged the event.
type Product struct {
	Name       string `json:"name"`
	VendorName string `json:"vendor_name"`
}

// Actor is who acted.
type Actor struct {
	User *User `json:"user"`
}

// User is OCSF's user object.
type User struct {
	UID       string `json:"uid,omitempty"`
	Name      string `json:"name,omitempty"`
	EmailAddr string `json:"email_addr,omitempty"`
	Type      string `json:"type,omitempty"`
	TypeID    int    `json:"type_id"`
}

// Endpoint is OCSF's network endpoint.
type Endpoint struct {
	IP   string `json:"ip,omitempty"`
	UID  string `json:"uid,omitempty"`
	Name string `json:"name,omitempty"`
}

// HTTPRequest carries the user agent.
type HTTPRequest struct {
	UserAgent string `json:"user_agent"`
}

// Service is what a user logged in to.
type Service struct {
	Name string `json:"name"`
}

// Session is the session a login opened or a logout closed.
type Session struct {
	UID string `json:"uid"`
}

// API is the operation of an API Activity.
type API struct {
	Operation string   `json:"operation"`
	Request   *Request `json:"request,omitempty"`
}

// Request is the request an operation came in.
type Request struct {
	UID string `json:"uid"`
}

// Resource is what an API Activity acted on.
type Resource struct {
	UID  string `json:"uid"`
	Type string `json:"type"`
}
