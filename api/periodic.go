package api

import (
	"github.com/auditlog/auditlog/audit/blob"
	"io"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/auditlog/auditlog/audit/periodic"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/auditlog/auditlog/audit"
)

// PeriodicDeps enables the periodic export endpoints (issue 16): the
// public keys, and a tenant's delivered windows and their files.
type PeriodicDeps struct {
	Store periodic.Store
	// Tenants and DefaultPlan say whether a tenant's export is on by its
	// plan.
	Tenants     audit.TenantDirectory
	DefaultPlan audit.Plan
	// Keys are the public keys that verify the digests, the current one
	// first.
	Keys []ExportKey
	// Bucket returns the bucket and prefix of a tenant's state.
	Bucket func(st *periodic.State) (blob.Store, string, error)
}

// ExportKey is one public key of GET /api/export-keys.
type ExportKey struct {
	KeyID     string `json:"keyId"`
	PublicKey string `json:"publicKey"` // PEM (PKIX)
	Current   bool   `json:"current"`
}

// PeriodicExportView is one delivered window or late file, with the
// links that download its data file and its digest.
type PeriodicExportView struct {
	periodic.Record
	Status string            `json:"status"` // delivered
	Links  map[string]string `json:"links"`
}

// PeriodicExportList is the answer of GET /api/audit-logs/periodic-exports.
type PeriodicExportList struct {
	Data       []PeriodicExportView `json:"data"`
	NextCursor *string              `json:"nextCursor"`
}

// exportKeys publishes the public keys: they are public material, so no
// token is needed (an auditor verifies with nothing else).
func (s *Server) exportKeys(c *gin.Context) {
	keys := s.periodic.Keys
	if keys == nil {
		keys = []ExportKey{}
	}
	c.JSON(http.StatusOK, gin.H{"keys": keys})
}

// listPeriodicExports lists the caller's tenant's delivered windows,
// newest first, by cursor.
func (s *Server) listPeriodicExports(c *gin.Context) {
	p := &queryParser{v: c.Request.URL.Query()}
	p.unknown(map[string]bool{"pageSize": true, "cursor": true})
	size := p.int("pageSize", 50, 1, 500)
	cursor := p.single("cursor")
	if _, _, err := periodic.ParseRecordCursor(cursor); err != nil {
		p.fail("cursor", "is not a cursor this service returned")
	}
	if err := p.err(); err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	if err := s.recordAccess(c, "list periodic exports", map[string]any{"query": c.Request.URL.RawQuery}); err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	recs, next, err := s.periodic.Store.PeriodicRecords(c.Request.Context(), principalOf(c).TenantID, cursor, size)
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	out := PeriodicExportList{Data: make([]PeriodicExportView, len(recs))}
	for i, r := range recs {
		link := func(key string) string { return "/api/audit-logs/periodic-exports/file?key=" + url.QueryEscape(key) }
		out.Data[i] = PeriodicExportView{Record: r, Status: "delivered", Links: map[string]string{"data": link(r.DataKey), "digest": link(r.DigestKey)}}
	}
	if next != "" {
		out.NextCursor = &next
	}
	c.JSON(http.StatusOK, out)
}

// periodicFile streams one object of the caller's tenant's periodic
// export (a data file, a digest or a public key), as stored, after
// recording the download as a sensitive-data access.
func (s *Server) periodicFile(c *gin.Context) {
	p := &queryParser{v: c.Request.URL.Query()}
	p.unknown(map[string]bool{"key": true})
	key := p.single("key")
	if err := p.err(); err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	tenant := principalOf(c).TenantID
	ctx := c.Request.Context()
	st, err := s.periodic.Store.PeriodicState(ctx, tenant)
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	bucket, prefix, err := s.periodic.Bucket(&st)
	if err != nil {
		writeError(c, s.deps.Logger, audit.Wrap(audit.EUNAVAILABLE, err, "the periodic export's bucket"))
		return
	}
	if key == "" || !strings.HasPrefix(key, prefix+"/"+tenant+"/") || strings.Contains(key, "..") || path.Clean(key) != key {
		p.fail("key", "is not an object of your tenant's periodic export (%s/%s/…)", prefix, tenant)
		writeError(c, s.deps.Logger, p.err())
		return
	}
	id := uuid.NewSHA1(uuid.NameSpaceURL, []byte("periodic:"+tenant+":"+key)).String()
	if err := s.record(c, audit.ResourceAuditExport, id, map[string]any{"operation": "periodic export download", "key": key}); err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	r, err := bucket.Open(ctx, key)
	if err != nil {
		writeError(c, s.deps.Logger, err)
		return
	}
	defer r.Close()
	h := c.Writer.Header()
	h.Set("Content-Type", "application/octet-stream")
	switch {
	case strings.HasSuffix(key, ".gz"):
		h.Set("Content-Type", "application/gzip")
	case strings.HasSuffix(key, ".json"):
		h.Set("Content-Type", "application/json")
	case strings.HasSuffix(key, ".pem"):
		h.Set("Content-Type", "application/x-pem-file")
	}
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": path.Base(key)}))
	c.Status(http.StatusOK)
	if _, err := io.Copy(c.Writer, r); err != nil {
		panic(http.ErrAbortHandler)
	}
}
