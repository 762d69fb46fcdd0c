package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
)

// runTenant shows or changes a tenant's plan in the Elasticsearch tenant
// directory:
//
//	auditlog tenant show --tenant <uuid>
//	auditlog tenant set-plan --tenant <uuid> --plan starter|pro|enterprise
func runTenant(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || (args[0] != "show" && args[0] != "set-plan") {
		fmt.Fprintln(stderr, "Usage: auditlog tenant show --tenant <uuid>\n       auditlog tenant set-plan --tenant <uuid> --plan starter|pro|enterprise")
		return fmt.Errorf("want a subcommand: show or set-plan")
	}
	sub := args[0]
	var c Config
	var tenant, plan string
	b := newBinder("auditlog tenant "+sub, getenv, stderr)
	b.elasticsearch(&c)
	b.fs.StringVar(&tenant, "tenant", "", "tenant UUID (required)")
	if sub == "set-plan" {
		b.fs.StringVar(&plan, "plan", "", "new plan: starter, pro or enterprise (required); the new retention applies to data already stored")
	}
	if err := b.parse(args[1:]); err != nil {
		return err
	}
	if c.ES.URL == "" {
		return fmt.Errorf("AUDITLOG_ES_URL must be set: the tenant directory lives in Elasticsearch")
	}
	if !audit.ValidUUID(tenant) {
		return fmt.Errorf("--tenant %q is not a UUID", tenant)
	}
	m := &Main{Config: c}
	client, err := m.esClient()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	caps, err := client.Detect(ctx)
	if err != nil {
		return err
	}
	store, err := elasticsearch.NewStore(client, caps, elasticsearch.StoreConfig{})
	if err != nil {
		return err
	}
	if err := store.Bootstrap(ctx); err != nil {
		return err
	}
	if sub == "set-plan" {
		p, err := audit.ParsePlan(plan)
		if err != nil {
			return err
		}
		if err := store.SetPlan(ctx, tenant, p); err != nil {
			return err
		}
	}
	p, err := store.Plan(ctx, tenant)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "tenant %s plan %s retention %s\n", tenant, p, p.Retention())
	return nil
}
