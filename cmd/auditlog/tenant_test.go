package main

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/testkit/accepttest"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
	"github.com/auditlog/auditlog/sqlite"
)

// tenantCmd runs `auditlog tenant` with vars.
func tenantCmd(vars map[string]string, args ...string) (string, string, int) {
	var out, errb strings.Builder
	code := run(append([]string{"tenant"}, args...), env(vars), &out, &errb)
	return out.String(), errb.String(), code
}

// TestTenantCommandOnEveryStore: list, show and set-plan work on the
// embedded store as on Elasticsearch, against the directory the store's
// writes filled; mistakes name what is wrong.
func TestTenantCommandOnEveryStore(t *testing.T) {
	const a, b = "4b0f2c1e-5d6a-4e7b-8c9d-0a1b2c3d4e5f", "9e8d7c6b-5a49-4382-9170-6f5e4d3c2b1a"
	events := append(tenantEvents(31, a, 20), tenantEvents(32, b, 20)...)
	stores := map[string]map[string]string{}
	dir := t.TempDir()
	accepttest.File(t, dir, AcceptKeyFile) // the key the tenant command reads in this data directory
	s, err := sqlite.Open(context.Background(), sqlite.Config{Accept: accepttest.Acceptor, Path: filepath.Join(dir, "audit.db"), DefaultPlan: audit.PlanEnterprise})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.WriteEvents(context.Background(), events); err != nil {
		t.Fatal(err)
	}
	s.Close()
	stores["sqlite"] = map[string]string{"AUDITLOG_DATA_DIR": dir}
	if esURL := testenv.ElasticsearchURL(t); esURL != "" {
		prefix := testenv.Name("auditlog-tenantcmd")
		loadES(t, esURL, prefix, events)
		stores["elasticsearch"] = map[string]string{"AUDITLOG_STORE": "elasticsearch", "AUDITLOG_ES_URL": esURL, "AUDITLOG_ES_INDEX_PREFIX": prefix,
			"AUDITLOG_ES_TENANT_LAYOUT": "shared", "AUDITLOG_ACCEPT_KEY": testAcceptKey(t)}
	}
	for name, vars := range stores {
		t.Run(name, func(t *testing.T) {
			out, errOut, code := tenantCmd(vars, "list")
			want := "tenant " + a + " plan enterprise retention 2557d\ntenant " + b + " plan enterprise retention 2557d\n2 tenants\n"
			if code != 0 || out != want {
				t.Fatalf("list: exit %d %q %s, want %q", code, out, errOut, want)
			}
			if out, errOut, code := tenantCmd(vars, "set-plan", "--tenant", strings.ToUpper(a), "--plan", "starter"); code != 0 || !strings.Contains(out, "plan starter retention 30d") {
				t.Fatalf("set-plan: exit %d %q %s", code, out, errOut)
			}
			// The plan change is a record in the tenant's log (checked, and on
			// Elasticsearch made visible by a refresh, before show counts it).
			if name == "sqlite" {
				checkPlanRecord(t, filepath.Join(vars["AUDITLOG_DATA_DIR"], "audit.db"), a)
			} else {
				checkESPlanRecord(t, vars, a)
			}
			where := "store sqlite: the events table of " + filepath.Join(vars["AUDITLOG_DATA_DIR"], "audit.db") + "\n"
			if name == "elasticsearch" {
				p := vars["AUDITLOG_ES_INDEX_PREFIX"]
				where = "layout dedicated, writes to " + p + "-events-starter-" + a + "\n" +
					"  reads " + p + "-events-enterprise-" + a + " (own): 21 events of this tenant, 1 backing indices (0 closed)\n"
			}
			if out, _, code := tenantCmd(vars, "show", "--tenant", a); code != 0 || out != "tenant "+a+" plan starter retention 30d\n"+
				"periodic export off (by plan) interval daily bucket (deployment's) prefix (deployment's) next window none yet\n"+where {
				t.Fatalf("show: exit %d %q", code, out)
			}
			testTenantPeriodic(t, vars, a)
			if out, _, _ := tenantCmd(vars, "list"); !strings.Contains(out, a+" plan starter") || !strings.Contains(out, b+" plan enterprise") {
				t.Fatalf("list after set-plan: %q", out)
			}
			// A plan for a tenant with no event yet registers it.
			const c = "0d1e2f3a-4b5c-4d6e-8f7a-8b9c0d1e2f3a"
			if _, errOut, code := tenantCmd(vars, "show", "--tenant", c); code == 0 || !strings.Contains(errOut, "not in the directory") {
				t.Fatalf("show of an unknown tenant: exit %d %s", code, errOut)
			}
			if _, errOut, code := tenantCmd(vars, "set-plan", "--tenant", c, "--plan", "pro"); code != 0 {
				t.Fatal(errOut)
			}
			if out, _, _ := tenantCmd(vars, "list"); !strings.Contains(out, c+" plan pro retention 365d") || !strings.HasSuffix(out, "3 tenants\n") {
				t.Fatalf("list after registering: %q", out)
			}
			testTenantPromote(t, name, vars, c)
		})
	}
	for _, tc := range []struct {
		vars map[string]string
		args []string
		want string
	}{
		{stores["sqlite"], nil, "want a subcommand"},
		{stores["sqlite"], []string{"drop"}, `unknown subcommand "drop"`},
		{stores["sqlite"], []string{"show"}, "--tenant is missing"},
		{stores["sqlite"], []string{"show", "--tenant", "acme"}, `--tenant "acme" is not a UUID`},
		{stores["sqlite"], []string{"set-plan", "--tenant", a, "--plan", "gold"}, "--plan"},
		{map[string]string{"AUDITLOG_DATA_DIR": filepath.Join(dir, "typo")}, []string{"list"}, "AUDITLOG_DATA_DIR"},
		{map[string]string{"AUDITLOG_STORE": "elasticsearch"}, []string{"list"}, "AUDITLOG_ES_URL must be set"},
		{map[string]string{"AUDITLOG_STORE": "mysql"}, []string{"list"}, "AUDITLOG_STORE"},
	} {
		if _, errOut, code := tenantCmd(tc.vars, tc.args...); code == 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("tenant %v: exit %d %q, want an error saying %q", tc.args, code, errOut, tc.want)
		}
	}
	for _, args := range [][]string{{"--help"}, {"set-plan", "--help"}} {
		out, errOut, code := tenantCmd(nil, args...)
		if code != 0 || !strings.Contains(out, "set-plan") || errOut != "" {
			t.Errorf("tenant %v: exit %d, stdout %q, stderr %q; want the usage on stdout, exit 0", args, code, out, errOut)
		}
	}
}

// testTenantPeriodic: tenant periodic turns a Starter tenant's export on
// hourly under its own bucket and prefix, then back to its plan and the
// deployment's; a bad value names its flag and changes nothing.
func testTenantPeriodic(t *testing.T, vars map[string]string, tenant string) {
	out, errOut, code := tenantCmd(vars, "periodic", "--tenant", tenant, "--enabled", "on", "--interval", "hourly", "--bucket", "acme-audit", "--prefix", "acme/exports")
	if want := "periodic export on (by setting) interval hourly bucket acme-audit prefix acme/exports next window none yet\n"; code != 0 || out != want {
		t.Fatalf("periodic: exit %d %q %s, want %q", code, out, errOut, want)
	}
	_, errOut, code = tenantCmd(vars, "periodic", "--tenant", tenant, "--interval", "weekly", "--bucket", "Bad_Bucket")
	if code == 0 || !strings.Contains(errOut, "interval") || !strings.Contains(errOut, "bucket") {
		t.Fatalf("bad settings: exit %d %s", code, errOut)
	}
	out, _, code = tenantCmd(vars, "periodic", "--tenant", tenant, "--enabled", "plan", "--bucket", "", "--prefix", "")
	if want := "periodic export off (by plan) interval hourly bucket (deployment's) prefix (deployment's) next window none yet\n"; code != 0 || out != want {
		t.Fatalf("periodic back to the plan: exit %d %q, want %q", code, out, want)
	}
}

// testTenantPromote: on Elasticsearch with AUDITLOG_ES_TENANT_LAYOUT=shared
// a tenant registered by set-plan is in its plan's shared stream, and
// promote gives it a stream of its own; the embedded store has no layouts
// and says so.
func testTenantPromote(t *testing.T, store string, vars map[string]string, tenant string) {
	t.Helper()
	if store == "sqlite" {
		if _, errOut, code := tenantCmd(vars, "promote", "--tenant", tenant); code == 0 || !strings.Contains(errOut, "layouts are Elasticsearch's") {
			t.Fatalf("promote on sqlite: exit %d %s", code, errOut)
		}
		return
	}
	p := vars["AUDITLOG_ES_INDEX_PREFIX"]
	if out, _, code := tenantCmd(vars, "show", "--tenant", tenant); code != 0 || !strings.Contains(out, "layout shared, writes to "+p+"-events-pro-shared\n") {
		t.Fatalf("show of a new tenant: exit %d %q", code, out)
	}
	if out, errOut, code := tenantCmd(vars, "promote", "--tenant", tenant); code != 0 || !strings.Contains(out, "layout dedicated, writes to "+p+"-events-pro-"+tenant+"\n") {
		t.Fatalf("promote: exit %d %q %s", code, out, errOut)
	}
}

// checkPlanRecord: the tenant's log holds the record of its change from
// enterprise to starter.
func checkPlanRecord(t *testing.T, path, tenant string) {
	t.Helper()
	s, err := sqlite.Open(context.Background(), sqlite.Config{Accept: accepttest.Acceptor, Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var recs []audit.Event
	err = s.ScanEvents(context.Background(), audit.Filter{TenantID: tenant, ResourceTypes: []string{audit.ResourceTenantPlan}}, audit.DefaultSort, func(b []audit.Event) error {
		recs = append(recs, b...)
		return nil
	})
	if err != nil || len(recs) != 1 || recs[0].Actor != audit.SystemActor || !strings.Contains(recs[0].Reason, "from enterprise (retention 2557 days) to starter (retention 30 days)") {
		t.Fatalf("plan change records: %v %+v", err, recs)
	}
}

// checkESPlanRecord: the same on Elasticsearch, searched after a refresh.
func checkESPlanRecord(t *testing.T, vars map[string]string, tenant string) {
	t.Helper()
	idx := vars["AUDITLOG_ES_INDEX_PREFIX"] + "-events-*"
	if res, err := http.Post(vars["AUDITLOG_ES_URL"]+"/"+idx+"/_refresh", "application/json", nil); err != nil {
		t.Fatal(err)
	} else {
		res.Body.Close()
	}
	res, err := http.Get(vars["AUDITLOG_ES_URL"] + "/" + idx + "/_search?q=resource.type:" + audit.ResourceTenantPlan + "%20AND%20tenantId:" + tenant)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out struct {
		Hits struct {
			Hits []struct {
				Source audit.Event `json:"_source"`
			}
		}
	}
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil || len(out.Hits.Hits) != 1 || !strings.Contains(out.Hits.Hits[0].Source.Reason, "from enterprise (retention 2557 days) to starter") {
		t.Fatalf("plan change records: %v %+v", err, out)
	}
}
