package api

import (
	"crypto/ed25519"
	"encoding/base64"
	"github.com/auditlog/auditlog/audit/vlog"
	"net/http"
	"strconv"

	"filippo.io/torchwood"
	"github.com/gin-gonic/gin"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/seal"
)

// LogDeps enable the verifiable log's endpoints when Store is set.
type LogDeps struct {
	Store vlog.Store
	// Origin is the deployment's name: a tenant's checkpoints have the
	// origin <Origin>/tenants/<tenant> and are signed under that name.
	Origin string
	// Key is the checkpoints' public key; Earlier are the keys that
	// signed checkpoints before a rotation.
	Key     ed25519.PublicKey
	Earlier []ed25519.PublicKey
	// Cosigned, when witnesses cosign the checkpoints, keeps each
	// tenant's latest cosigned checkpoint; Cosigner gathers them (its lag
	// is a field of /healthz), and Witnesses are their keys, published.
	Cosigned  vlog.CosignStore
	Cosigner  *seal.Cosigner
	Witnesses []string
	// Sealer, when this process seals, tells the rows it refused
	// (unaccepted), a field of /healthz.
	Sealer *seal.Sealer
}

// logKey answers GET /api/log-key: the keys in note's verifier form,
// under the deployment's name (which verifiers take for every tenant),
// or with ?tenant= under that tenant's origin (what a witness such as
// litewitness registers: its key name must be the log's origin).
func (s *Server) logKey(c *gin.Context) {
	name := s.logs.Origin
	if t, ok := c.GetQuery("tenant"); ok {
		if !audit.ValidUUID(t) {
			writeError(c, s.deps.Logger, &audit.Error{Code: audit.EINVALID, Message: "invalid query parameters",
				Fields: []audit.FieldError{{Field: "tenant", Message: "must be a tenant id (a UUID)"}}})
			return
		}
		name = vlog.Origin(s.logs.Origin, audit.NormalizeTenantID(t))
	}
	earlier := make([]string, 0, len(s.logs.Earlier))
	for _, k := range s.logs.Earlier {
		earlier = append(earlier, vlog.VerifierKey(name, k))
	}
	c.JSON(http.StatusOK, gin.H{"verifierKey": vlog.VerifierKey(name, s.logs.Key), "earlierKeys": earlier, "name": name,
		"witnesses": append([]string{}, s.logs.Witnesses...)})
}

// InclusionView is an inclusion proof as the API answers it: hashes in
// standard base64, as in checkpoints.
type InclusionView struct {
	EventID    string   `json:"eventId"`
	LeafIndex  int64    `json:"leafIndex"`
	LeafHash   string   `json:"leafHash"`
	TreeSize   int64    `json:"treeSize"`
	RootHash   string   `json:"rootHash"`
	Proof      []string `json:"proof"`
	Checkpoint string   `json:"checkpoint"`
	// CheckpointTime is when the latest checkpoint was signed.
	CheckpointTime audit.Timestamp `json:"checkpointTime"`
}

// ConsistencyView is a consistency proof as the API answers it.
type ConsistencyView struct {
	From     int64    `json:"from"`
	To       int64    `json:"to"`
	FromRoot string   `json:"fromRoot"`
	ToRoot   string   `json:"toRoot"`
	Proof    []string `json:"proof"`
}

func b64(h tlog.Hash) string { return base64.StdEncoding.EncodeToString(h[:]) }

func b64s(hs []tlog.Hash) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = b64(h)
	}
	return out
}

// logRoutes mounts the tenant's verifiable log.
func (s *Server) logRoutes() {
	s.engine.GET("/api/log-key", s.logKey)
	g := s.engine.Group("/api/log", s.authenticate, s.bound, s.limit, s.timeout)
	g.GET("/checkpoint", s.checkpoint)
	g.GET("/proof", s.inclusionProof)
	g.GET("/consistency", s.consistencyProof)
	g.GET("/tile/*path", s.tile)
	g.GET("/leaves", s.leaves)
}

// LeafView is one leaf as GET /api/log/leaves lists it.
type LeafView struct {
	Index    int64  `json:"index"`
	EventID  string `json:"eventId"`
	LeafHash string `json:"leafHash"`
}

// maxLeavesPage bounds a page of leaves.
const maxLeavesPage = 1000

// leaves answers ?start=<i>[&limit=<n>]: the leaves from i under the
// latest checkpoint, with the ids of their events, so that a verifier
// (auditlog log verify --api) names each event it judges. The hashes are
// the tree's: a verifier rebuilds the tree from them and checks its root
// against the signed checkpoint, trusting neither.
func (s *Server) leaves(c *gin.Context) {
	p := &queryParser{v: c.Request.URL.Query()}
	p.unknown(map[string]bool{"start": true, "limit": true})
	start, limit := int64(p.int("start", 0, 0, 1<<62)), p.int("limit", maxLeavesPage, 1, maxLeavesPage)
	err := p.err()
	if err == nil {
		err = s.recordAccess(c, "log leaves", map[string]any{"start": strconv.FormatInt(start, 10)})
	}
	tenant := principalOf(c).TenantID
	var ls vlog.State
	if err == nil {
		ls, err = s.logs.Store.LogState(c.Request.Context(), tenant)
	}
	var got []vlog.Leaf
	if err == nil && start < ls.Size {
		got, err = s.logs.Store.Leaves(c.Request.Context(), tenant, start, int(min(int64(limit), ls.Size-start)))
	}
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	out := make([]LeafView, len(got))
	for i, l := range got {
		out[i] = LeafView{Index: l.Index, EventID: l.EventID, LeafHash: b64(l.Hash)}
	}
	c.JSON(http.StatusOK, gin.H{"treeSize": ls.Size, "leaves": out})
}

// tile answers a tile in the C2SP tlog-tiles layout under /api/log: a
// hash tile tile/<L>/<N>[.p/<W>], or an entry bundle
// tile/entries/<N>[.p/<W>] (N in groups of three digits, x001/234). An
// entry is the leaf's auditlog-event-v2 record (the event id and the
// SHA-256 of its canonical encoding: vlog.LeafEntry), so that a standard
// client (torchwood's Client) reads and authenticates every entry, and
// then checks an event from the API against it. A tile's bytes never
// change, so it may be cached for good.
func (s *Server) tile(c *gin.Context) {
	path := "tile" + c.Param("path")
	t, perr := torchwood.ParseTilePath(path)
	if perr != nil || t.L < -1 || t.L > 7 {
		// The path is what is wrong, not a query parameter: the problem
		// says so (issue 42).
		writeError(c, s.deps.Logger, &audit.Error{Code: audit.EINVALID, Message: "invalid tile path", Fields: []audit.FieldError{{Field: "path",
			Message: "must be a tile path of C2SP tlog-tiles: tile/<L>/<N>[.p/<W>] (L from 0 to 7) or tile/entries/<N>[.p/<W>], N in groups of three digits (x001/234)"}}})
		return
	}
	p := &queryParser{v: c.Request.URL.Query()}
	p.unknown()
	err := p.err()
	if err == nil {
		err = s.recordAccess(c, "log tile", map[string]any{"tile": path})
	}
	var data []byte
	if err == nil && t.L == -1 {
		data, err = seal.ReadEntries(c.Request.Context(), s.logs.Store, s.deps.Read.Reader, principalOf(c).TenantID, t)
	} else if err == nil {
		data, err = seal.ReadTile(c.Request.Context(), s.logs.Store, principalOf(c).TenantID, t)
	}
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	c.Header("Cache-Control", "private, max-age=31536000, immutable")
	c.Data(http.StatusOK, "application/octet-stream", data)
}

// checkpoint answers the tenant's latest signed checkpoint, as note text,
// with the witnesses' cosignatures when they cosigned it; with
// ?cosigned=true, the latest checkpoint witnesses cosigned.
func (s *Server) checkpoint(c *gin.Context) {
	p := &queryParser{v: c.Request.URL.Query()}
	p.unknown(map[string]bool{"cosigned": true})
	cosigned := p.boolean("cosigned")
	err := p.err()
	if err == nil {
		err = s.recordAccess(c, "log checkpoint", nil)
	}
	var note string
	if err == nil {
		note, _, err = s.latestCheckpoint(c.Request.Context(), principalOf(c).TenantID, cosigned)
	}
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	c.Data(http.StatusOK, "text/plain; charset=utf-8", []byte(note))
}

// inclusionProof answers ?event=<id>[&size=<n>].
func (s *Server) inclusionProof(c *gin.Context) {
	p := &queryParser{v: c.Request.URL.Query()}
	p.unknown(map[string]bool{"event": true, "size": true, "cosigned": true})
	id := audit.NormalizeID(p.single("event"))
	if !audit.ValidID(id) {
		p.fail("event", "must be an event id (evt_audit_ followed by a UUID)")
	}
	size := int64(p.int("size", 0, 1, 1<<62))
	cosigned := p.boolean("cosigned")
	if cosigned && size > 0 {
		p.fail("size", "goes without cosigned: the proof is for the latest cosigned checkpoint's size")
	}
	err := p.err()
	if err == nil {
		err = s.recordAccess(c, "log inclusion proof", map[string]any{"event": id})
	}
	if err == nil && cosigned {
		s.cosignedInclusion(c, id)
		return
	}
	var in seal.Inclusion
	if err == nil {
		in, err = seal.ProveInclusion(c.Request.Context(), s.logs.Store, principalOf(c).TenantID, id, size)
	}
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	// The checkpoint of the state the proof was made from: one read again
	// could be a later round's, for another tree than the proof's.
	c.JSON(http.StatusOK, InclusionView{EventID: id, LeafIndex: in.Leaf.Index, LeafHash: b64(in.Leaf.Hash), TreeSize: in.Size,
		RootHash: b64(in.Root), Proof: b64s(in.Proof), Checkpoint: in.State.Checkpoint, CheckpointTime: audit.NewTimestamp(in.State.SealedAt)})
}

// consistencyProof answers ?from=<n>[&to=<m>].
func (s *Server) consistencyProof(c *gin.Context) {
	p := &queryParser{v: c.Request.URL.Query()}
	p.unknown(map[string]bool{"from": true, "to": true})
	from, to := int64(p.int("from", 0, 1, 1<<62)), int64(p.int("to", 0, 1, 1<<62))
	if !c.Request.URL.Query().Has("from") {
		p.fail("from", "is required: the size of the earlier tree")
	}
	err := p.err()
	if err == nil {
		err = s.recordAccess(c, "log consistency proof", map[string]any{"from": strconv.FormatInt(from, 10), "to": strconv.FormatInt(to, 10)})
	}
	var cp seal.Consistency
	if err == nil {
		cp, err = seal.ProveConsistency(c.Request.Context(), s.logs.Store, principalOf(c).TenantID, from, to)
	}
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	c.JSON(http.StatusOK, ConsistencyView{From: cp.From, To: cp.To, FromRoot: b64(cp.FromRoot), ToRoot: b64(cp.ToRoot), Proof: b64s(cp.Proof)})
}
