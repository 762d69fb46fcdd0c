// Command genschema derives the event's schemas in api/openapi.json and
// docs/schemas/data-line-v1.json from the event's table of fields
// (api/internal/eventschema): `go generate ./api`.
package main

import (
	"log"
	"os"

	"github.com/auditlog/auditlog/api/internal/eventschema"
)

const (
	openapiFile  = "openapi.json"
	dataLineFile = "../docs/schemas/data-line-v1.json"
)

func main() {
	b, err := os.ReadFile(openapiFile)
	if err != nil {
		log.Fatal(err)
	}
	doc, err := eventschema.OpenAPI(b)
	if err != nil {
		log.Fatalf("%s: %v", openapiFile, err)
	}
	old, err := os.ReadFile(dataLineFile)
	if err != nil {
		log.Fatal(err)
	}
	line, err := eventschema.DataLine(doc, old)
	if err != nil {
		log.Fatalf("%s: %v", dataLineFile, err)
	}
	for name, b := range map[string][]byte{openapiFile: doc, dataLineFile: line} {
		if err := os.WriteFile(name, b, 0o644); err != nil {
			log.Fatal(err)
		}
	}
}
