package client_test

import (
	"context"
	"github.com/auditlog/auditlog/audit/restorejob"
	"log"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/client"
)

// What docs/ingest.md's example takes from the service's configuration.
var (
	maskKey       = client.NewMaskKey() // the producer's own key, from its secret store (optional: docs/ingest.md, "Who masks secrets")
	restoreSecret = []byte("the service's AUDITLOG_RESTORE_SECRET")
)

// The README's example (docs/ingest.md, "Producer client"; TestREADMEExample
// keeps the two the same): record a change of an IVR, then apply the
// restore requests the audit log sends.
func Example() {
	ctx := context.Background()
	c, err := client.New(client.Config{Brokers: []string{"localhost:9094"}, MaskKey: maskKey, RestoreSecret: restoreSecret})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	me := audit.Actor{ID: "2f1b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", Email: "ivr-service@example.com", Role: "service"}
	ivr := audit.Resource{Type: "ivr", ID: "2bec8061-7974-4fa0-a703-0ebd42b72c7e"}
	before := map[string]any{"greeting": "Hello", "crm": map[string]any{"apiKey": "k-1"}} // apiKey leaves masked (MaskKey)
	after := map[string]any{"greeting": "Welcome", "crm": map[string]any{"apiKey": "k-1"}}
	e, err := c.Event(client.Change{TenantID: tenant, Actor: me, Action: audit.ActionUpdate, Resource: ivr, Before: before, After: after})
	if err == nil {
		err = c.Publish(ctx, e) // returns once Kafka has it, keyed by tenant
	}
	// Restore requests: check r.ExpectedState, put r.State back (r.OmittedFields untouched), report it.
	log.Print(err, c.ConsumeRestores(ctx, "ivr-service", func(ctx context.Context, r restorejob.Request) error {
		done, err := c.Event(client.Applied(r, me, after, r.State))
		if err != nil {
			return err
		}
		return c.Publish(ctx, done)
	}, nil))
}
