package api

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/gin-gonic/gin"

	"github.com/auditlog/auditlog/audit"
)

// StreamDeps enables /api/streams when its Store is set (with Read and
// Log: a stream delivers the tenant's verifiable log).
type StreamDeps struct {
	Store stream.Store
	// Tenants and DefaultPlan give the tenant's plan; Plans are the plans
	// whose tenants may create streams (the deployment's
	// AUDITLOG_STREAM_PLANS).
	Tenants     audit.TenantDirectory
	DefaultPlan audit.Plan
	Plans       []audit.Plan
	Rules       stream.Rules
	// Secret makes a webhook's signing key when its creator gives none.
	Secret func() string
	// Test sends a test delivery to st's destination: the outcome as the
	// stream's rules read it ("accepted", "retry", "refused",
	// "rejected") and the destination's reason.
	Test func(ctx context.Context, st stream.Stream) (outcome, reason string)
}

// maxStreamBody bounds the body of a stream's configuration.
const maxStreamBody = 64 << 10

// StreamView is one stream as the API shows it: its configuration with
// secrets masked, its state, cursor, parked ranges, health and lag.
type StreamView struct {
	ID string `json:"id"`
	stream.Config
	State     string               `json:"state"`
	Reason    string               `json:"reason"`
	Cursor    uint64               `json:"cursor"`
	LogSize   uint64               `json:"logSize"`
	Lag       stream.Lag           `json:"lag"`
	Parked    []stream.ParkedRange `json:"parked"`
	Health    stream.Health        `json:"health"`
	CreatedAt audit.Timestamp      `json:"createdAt"`
	UpdatedAt audit.Timestamp      `json:"updatedAt"`
}

func (s *Server) streamView(ctx context.Context, st stream.Stream) (StreamView, error) {
	ls, err := s.logs.Store.LogState(ctx, st.TenantID)
	if err != nil {
		return StreamView{}, err
	}
	size := uint64(ls.Size)
	v := StreamView{ID: st.ID, Config: st.Config(), State: st.State, Reason: st.Reason, Cursor: st.Cursor, LogSize: size,
		Lag: st.Lag(size, s.deps.Now()), Parked: st.Parked, Health: st.Health,
		CreatedAt: audit.NewTimestamp(st.CreatedAt), UpdatedAt: audit.NewTimestamp(st.UpdatedAt)}
	if v.Parked == nil {
		v.Parked = []stream.ParkedRange{}
	}
	return v, nil
}

// streamRoutes mounts a tenant's streams: any tenant admin manages them
// (an operator-team member with a declared reason, recorded as such).
func (s *Server) streamRoutes() {
	g := s.engine.Group("/api/streams", s.authenticate, s.bound, s.limit, s.timeout)
	g.GET("", s.listStreams)
	g.POST("", s.createStream)
	g.GET("/:id", s.getStream)
	g.PUT("/:id", s.updateStream)
	g.DELETE("/:id", s.deleteStream)
	g.POST("/:id/pause", s.streamAction("pause", func(st *stream.Stream, c *gin.Context, now timeNow) error {
		return st.Pause("paused by "+who(principalOf(c)), now())
	}))
	g.POST("/:id/resume", s.streamAction("resume", func(st *stream.Stream, _ *gin.Context, now timeNow) error { return st.Resume(now()) }))
	g.POST("/:id/replay", s.replayStream)
	g.POST("/:id/test", s.testStream)
}

// who names the caller in a stream's reason.
func who(p audit.Principal) string {
	if p.Email != "" {
		return p.Email
	}
	return "user " + p.UserID
}

func (s *Server) listStreams(c *gin.Context) {
	l, err := s.streams.Store.Streams(c.Request.Context(), principalOf(c).TenantID)
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	out := make([]StreamView, 0, len(l))
	for _, st := range l {
		v, err := s.streamView(c.Request.Context(), st)
		if err != nil {
			writeError(c, s.deps.Logger, err)
			return
		}
		out = append(out, v)
	}
	c.JSON(http.StatusOK, gin.H{"data": out})
}

func (s *Server) getStream(c *gin.Context) {
	st, err := s.streams.Store.Stream(c.Request.Context(), principalOf(c).TenantID, c.Param("id"))
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	s.writeStream(c, http.StatusOK, st)
}

func (s *Server) writeStream(c *gin.Context, status int, st stream.Stream) {
	v, err := s.streamView(c.Request.Context(), st)
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	c.JSON(status, v)
}

// streamConfig reads a stream's configuration strictly: an unknown field
// or a wrong type is a 400 naming it, an empty body too.
func streamConfig(c *gin.Context) (stream.Config, error) {
	var sc stream.Config
	empty, err := decodeStrict(c, maxStreamBody, "stream", &sc)
	if err == nil && empty {
		err = bodyError(io.EOF, "stream")
	}
	return sc, err
}

// allowed refuses a tenant whose plan the deployment does not stream.
func (s *Server) streamAllowed(c *gin.Context) error {
	ctx, tenant := c.Request.Context(), principalOf(c).TenantID
	plan, err := s.streams.Tenants.Plan(ctx, tenant)
	if audit.ErrorCode(err) == audit.ENOTFOUND {
		plan, err = s.streams.DefaultPlan, nil
	}
	if err != nil {
		return err
	}
	if !slices.Contains(s.streams.Plans, plan) {
		names := make([]string, len(s.streams.Plans))
		for i, p := range s.streams.Plans {
			names[i] = string(p)
		}
		return audit.Errorf(audit.EFORBIDDEN, "streams are part of the %s plan (the tenant's plan is %s)", strings.Join(names, " and "), plan)
	}
	return nil
}

func (s *Server) createStream(c *gin.Context) {
	sc, err := streamConfig(c)
	if err == nil {
		err = s.streamAllowed(c)
	}
	var st stream.Stream
	k, madeKey := sc.Destination.Settings.(stream.KeyMaker)
	madeKey = madeKey && k.SigningKey() == ""
	if err == nil {
		p := principalOf(c)
		st, err = stream.NewStream(p.TenantID, sc, p.Email, s.streams.Rules, s.streams.Secret, s.deps.Now())
	}
	if err == nil {
		err = s.recordStream(c, audit.ActionCreate, "", nil, &st)
	}
	if err == nil {
		err = s.streams.Store.PutStream(c.Request.Context(), &st)
	}
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	v, err := s.streamView(c.Request.Context(), st)
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	if made, ok := st.Destination.Settings.(stream.KeyMaker); ok && madeKey {
		v.Destination.Settings.(stream.KeyMaker).SetSigningKey(made.SigningKey()) // made here: shown this once, so that the receiver can verify
	}
	c.Header("Location", "/api/streams/"+st.ID)
	c.JSON(http.StatusCreated, v)
}

func (s *Server) updateStream(c *gin.Context) {
	sc, err := streamConfig(c)
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	s.changeStream(c, audit.ActionUpdate, "", func(st *stream.Stream) error {
		return st.Reconfigure(sc, s.streams.Rules, s.deps.Now())
	})
}

func (s *Server) deleteStream(c *gin.Context) {
	ctx, tenant, id := c.Request.Context(), principalOf(c).TenantID, c.Param("id")
	st, err := s.streams.Store.Stream(ctx, tenant, id)
	if err == nil {
		err = s.recordStream(c, audit.ActionDelete, "", &st, nil)
	}
	if err == nil {
		err = s.streams.Store.DeleteStream(ctx, tenant, id)
	}
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	c.Status(http.StatusNoContent)
}
