package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/auditlog/auditlog/audit/retention"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/auditlog/auditlog/audit/periodic"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/elasticsearch"
)

const tenantUsage = `Usage: auditlog tenant list
       auditlog tenant show --tenant <uuid>
       auditlog tenant set-plan --tenant <uuid> --plan starter|pro|enterprise
       auditlog tenant promote --tenant <uuid>
       auditlog tenant periodic --tenant <uuid> [--enabled on|off|plan] [--interval hourly|daily]
                                [--bucket <name>] [--prefix <prefix>]

Lists, shows or changes the plans of the tenant directory of the store that
` + "`auditlog serve`" + ` uses: the embedded SQLite file of AUDITLOG_DATA_DIR (default), or
Elasticsearch with AUDITLOG_STORE=elasticsearch and AUDITLOG_ES_URL. A new plan's
retention applies to the data already stored. A tenant enters the directory
with its first event (under AUDITLOG_DEFAULT_PLAN) or its first set-plan.
On Elasticsearch, show also says where the tenant's events live (its plan's
shared data stream or its own, and how many events each holds), and promote
moves a shared tenant's new events to a data stream of its own.
periodic shows or changes the tenant's periodic export: on, off, or as its
plan says (on for Enterprise); hourly or daily windows; its own bucket or
prefix ("" for the deployment's; a new one starts a new digest chain there).
` + "`auditlog tenant <subcommand> --help`" + ` lists the flags.
`

// runTenant lists, shows or changes tenants' plans in the directory of
// the configured store.
func runTenant(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	tc, err := parseTenantCmd(args, getenv, stdout, stderr)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir, closeDir, err := openTenantDirectory(ctx, "tenant", tc.c)
	if err != nil {
		return err
	}
	defer closeDir()
	return tc.do(ctx, dir, stdout)
}

// tenantCommand is a parsed `auditlog tenant` command.
type tenantCommand struct {
	sub, tenant string
	c           Config
	plan        audit.Plan
	settings    periodic.Settings
}

// parseTenantCmd reads the subcommand and its flags.
func parseTenantCmd(args []string, getenv func(string) string, stdout, stderr io.Writer) (*tenantCommand, error) {
	if len(args) == 0 {
		fmt.Fprint(stderr, tenantUsage)
		return nil, errors.New("want a subcommand: list, show, set-plan, promote or periodic")
	}
	tc := &tenantCommand{sub: args[0]}
	switch tc.sub {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, tenantUsage)
		return nil, flag.ErrHelp
	case "list", "show", "set-plan", "promote", "periodic":
	default:
		fmt.Fprint(stderr, tenantUsage)
		return nil, fmt.Errorf("unknown subcommand %q: want list, show, set-plan, promote or periodic", tc.sub)
	}
	var plan string
	b := newBinder("auditlog tenant "+tc.sub, getenv, stderr)
	b.store(&tc.c)
	if tc.sub != "list" {
		b.fs.StringVar(&tc.tenant, "tenant", "", "tenant UUID (required)")
	}
	if tc.sub == "set-plan" {
		b.fs.StringVar(&plan, "plan", "", "new plan: starter, pro or enterprise (required); the new retention applies to data already stored")
	}
	if tc.sub == "periodic" {
		periodicFlags(b.fs, &tc.settings)
	}
	b.describe(stdout, tenantUsage, "Store")
	if err := b.parse(args[1:]); err != nil {
		return nil, err
	}
	if tc.sub != "list" && tc.tenant == "" {
		return nil, errors.New("--tenant is missing: the tenant's UUID")
	}
	tc.tenant = audit.NormalizeTenantID(tc.tenant)
	if tc.tenant != "" && !audit.ValidUUID(tc.tenant) {
		return nil, fmt.Errorf("--tenant %q is not a UUID", tc.tenant)
	}
	if tc.sub == "set-plan" {
		var err error
		if tc.plan, err = audit.ParsePlan(plan); err != nil {
			return nil, fmt.Errorf("--plan: %w", err)
		}
	}
	return tc, nil
}

// periodicFlags binds the flags of `tenant periodic`: only the flags
// given change a setting (a nil field keeps it).
func periodicFlags(fs *flag.FlagSet, ps *periodic.Settings) {
	str := func(dst **string) func(string) error {
		return func(v string) error { *dst = &v; return nil }
	}
	fs.Func("enabled", "on, off, or plan (on for Enterprise)", str(&ps.Enabled))
	fs.Func("interval", "hourly or daily windows", func(v string) error { iv := periodic.Interval(v); ps.Interval = &iv; return nil })
	fs.Func("bucket", "the tenant's own S3 bucket (\"\" for the deployment's)", str(&ps.Bucket))
	fs.Func("prefix", "the tenant's own key prefix (\"\" for the deployment's)", str(&ps.Prefix))
}

// do carries the command out on the directory, then shows the tenant.
func (tc *tenantCommand) do(ctx context.Context, dir tenantStore, stdout io.Writer) error {
	switch tc.sub {
	case "list":
		return listTenants(ctx, dir, stdout)
	case "periodic":
		return periodicSettings(ctx, dir, tc.tenant, tc.settings, stdout)
	case "set-plan":
		w, ok := dir.(audit.EventWriter)
		if !ok {
			return errors.New("this store cannot record the plan change in the tenant's log")
		}
		def, err := audit.ParsePlan(tc.c.DefaultPlan)
		if err != nil {
			return err
		}
		if err := retention.ChangePlan(ctx, w, dir, tc.tenant, tc.plan, def, time.Now()); err != nil {
			return err
		}
	case "promote":
		es, ok := dir.(*elasticsearch.Store)
		if !ok {
			return errors.New("promote: the embedded store keeps every tenant in one table; layouts are Elasticsearch's")
		}
		if err := es.Promote(ctx, tc.tenant); err != nil {
			return err
		}
	}
	return tc.show(ctx, dir, stdout)
}

// show prints the tenant's plan, periodic export and whereabouts.
func (tc *tenantCommand) show(ctx context.Context, dir tenantStore, stdout io.Writer) error {
	got, err := dir.Plan(ctx, tc.tenant)
	if audit.ErrorCode(err) == audit.ENOTFOUND {
		return fmt.Errorf("tenant %s is not in the directory: it has no event yet (set-plan registers it)", tc.tenant)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "tenant %s plan %s retention %s\n", tc.tenant, got, retentionText(got))
	st, err := dir.PeriodicState(ctx, tc.tenant)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, periodicLine(&st, got))
	if es, ok := dir.(*elasticsearch.Store); ok {
		return printWhereabouts(ctx, es, tc.tenant, stdout)
	}
	fmt.Fprintf(stdout, "store sqlite: the events table of %s\n", filepath.Join(tc.c.DataDir, "audit.db"))
	return nil
}

// printWhereabouts prints where an Elasticsearch tenant's events live.
func printWhereabouts(ctx context.Context, es *elasticsearch.Store, tenant string, w io.Writer) error {
	wh, err := es.Where(ctx, tenant)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "layout %s, writes to %s\n", wh.Layout, wh.Writes)
	for _, u := range wh.Streams {
		kind := "own"
		if u.Shared {
			kind = "shared"
		}
		fmt.Fprintf(w, "  reads %s (%s): %d events of this tenant, %d backing indices (%d closed)\n", u.Name, kind, u.Events, u.Indices, u.ClosedIndices)
	}
	if wh.MovedFrom != "" {
		fmt.Fprintf(w, "  a plan change is still copying its events out of %s\n", wh.MovedFrom)
	}
	return nil
}

// periodicSettings applies ps to the tenant's periodic export (retrying
// when a replica moved its state meanwhile) and prints the result.
func periodicSettings(ctx context.Context, dir tenantStore, tenant string, ps periodic.Settings, w io.Writer) error {
	if err := ps.Validate(); err != nil {
		return err
	}
	plan, err := dir.Plan(ctx, tenant)
	if audit.ErrorCode(err) == audit.ENOTFOUND {
		return fmt.Errorf("tenant %s is not in the directory: it has no event yet (set-plan registers it)", tenant)
	}
	if err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		st, err := dir.PeriodicState(ctx, tenant)
		if err != nil {
			return err
		}
		st.Apply(ps)
		err = dir.PutPeriodicState(ctx, &st)
		if audit.ErrorCode(err) == audit.ECONFLICT && attempt < 20 {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		if err != nil {
			return err
		}
		fmt.Fprintln(w, periodicLine(&st, plan))
		return nil
	}
}

// periodicLine describes a tenant's periodic export in one line.
func periodicLine(st *periodic.State, plan audit.Plan) string {
	on, why := "off", "by setting"
	if st.Active(plan) {
		on = "on"
	}
	if st.Enabled == nil {
		why = "by plan"
	}
	or := func(v, def string) string {
		if v == "" {
			return def
		}
		return v
	}
	next := "none yet"
	if !st.NextStart.IsZero() {
		next = st.NextStart.UTC().Format(time.RFC3339)
	}
	return fmt.Sprintf("periodic export %s (%s) interval %s bucket %s prefix %s next window %s", on, why, or(string(st.Interval), "daily"),
		or(st.Bucket, "(deployment's)"), or(st.Prefix, "(deployment's)"), next)
}

// listTenants prints one line per tenant, a page at a time.
func listTenants(ctx context.Context, dir audit.TenantDirectory, w io.Writer) error {
	after, n := "", 0
	for {
		page, err := dir.Tenants(ctx, after, audit.MaxTenantPage)
		if err != nil {
			return err
		}
		for _, t := range page {
			fmt.Fprintf(w, "tenant %s plan %s retention %s\n", t.ID, t.Plan, retentionText(t.Plan))
		}
		n += len(page)
		if len(page) < audit.MaxTenantPage {
			fmt.Fprintf(w, "%d tenants\n", n)
			return nil
		}
		after = page[len(page)-1].ID
	}
}

// retentionText prints a plan's retention in days.
func retentionText(p audit.Plan) string {
	return fmt.Sprintf("%dd", int(p.Retention()/(24*time.Hour)))
}

// tenantStore is what the tenant commands use of a store.
type tenantStore interface {
	audit.TenantDirectory
	periodic.Store
}

// openTenantDirectory opens the directory of the configured store. The
// embedded database must exist: a typo in AUDITLOG_DATA_DIR must not
// create an empty store and report that it has no tenants.
func openTenantDirectory(ctx context.Context, cmd string, c Config) (tenantStore, func(), error) {
	switch {
	case c.Store == "elasticsearch" && c.ES.URL == "":
		return nil, nil, errors.New("AUDITLOG_ES_URL must be set: the tenant directory lives in Elasticsearch")
	case c.Store == "sqlite":
		path := filepath.Join(c.DataDir, "audit.db")
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, nil, fmt.Errorf("no embedded store at %s (AUDITLOG_DATA_DIR=%s): start `auditlog serve` with this data directory first", path, c.DataDir)
		}
	}
	m := NewMain(cmd, c, slog.New(slog.NewTextHandler(io.Discard, nil)))
	plan, err := m.defaultPlan()
	if err != nil {
		return nil, nil, err
	}
	opened, err := m.openBackend(ctx, plan)
	if err != nil {
		_ = m.Close()
		return nil, nil, err
	}
	return opened.store, func() { _ = m.Close() }, nil
}
