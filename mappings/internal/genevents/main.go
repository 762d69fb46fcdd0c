// Command genevents writes mappings/events.json from the event's one
// description (mappings/internal/eventmapping): `go generate ./mappings`.
package main

import (
	"log"
	"os"

	"github.com/auditlog/auditlog/mappings/internal/eventmapping"
)

func main() {
	if err := os.WriteFile("events.json", eventmapping.Render(), 0o644); err != nil {
		log.Fatal(err)
	}
}
