package api

import (
	_ "embed"
	"net/http"

	"github.com/gin-gonic/gin"
)

// OpenAPI is the OpenAPI 3.1 document of the service (api/openapi.json).
// It replaces the interim 1.0.0-placeholder of spec §9; a test checks real
// responses against it. Written by hand, except the event's schemas,
// which go generate derives from audit.EventFields (internal/eventschema).
//
//go:generate go run ./internal/genschema
//go:embed openapi.json
var OpenAPI []byte

func (s *Server) openapi(c *gin.Context) {
	c.Data(http.StatusOK, "application/json", OpenAPI)
}
