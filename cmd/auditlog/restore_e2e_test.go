package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/auditlog/auditlog/audit/restorejob"
	"io/fs"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	auditclient "github.com/auditlog/auditlog/client"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
	"github.com/auditlog/auditlog/kafka"
)

const restoreSecret = "0123456789abcdef0123456789abcdef"

// policyVersion is version n (1 to 5) of a recording policy whose
// integration holds a clientSecret three levels deep.
func policyVersion(n int) map[string]any {
	return map[string]any{"retentionDays": 30 * n, "integration": map[string]any{"auth": map[string]any{"clientSecret": fmt.Sprintf("secret-v%d", n), "user": "svc"}},
		"rules": []any{map[string]any{"id": "r1", "mode": []string{"all", "some", "none", "all", "some"}[n-1]}}}
}

// restoreLoop is the whole restore loop on a running serve: the owner
// records five versions of a policy through the client package, an admin
// restores version 2, the owner receives the request (receive starts its
// consumer, or nothing for a webhook) and applies it, and the audit log
// reports the restore applied in its status and the history.
func restoreLoop(t *testing.T, m *Main, owner *auditclient.Client, got <-chan restorejob.Request) {
	defer noSecretOnDisk(t, m.Config.DataDir, "secret-v")
	base := "http://" + m.Addr()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	actor := audit.Actor{ID: "2f1b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", Email: "policy-service@x.example", Role: "service"}
	res := audit.Resource{Type: audit.ResourceRecordingPolicy, ID: "5c6d7e8f-9a0b-4c2d-8e3f-4a5b6c7d8e9f"}
	var ids []string
	for n := 1; n <= 5; n++ {
		ch := auditclient.Change{TenantID: demoTenant, Actor: actor, Action: audit.ActionUpdate, Resource: res, Before: policyVersion(max(n-1, 1)), After: policyVersion(n)}
		if n == 1 {
			ch.Action, ch.Before = audit.ActionCreate, nil
		}
		e, err := owner.Event(ch)
		if err != nil {
			t.Fatal(err)
		}
		if err := owner.Publish(ctx, e); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, e.ID)
	}
	admin, _ := api.MintToken([]byte("s3cret"), audit.Principal{UserID: "3a4b5c6d-7e8f-4a0b-8c1d-2e3f4a5b6c7d", Email: "admin@x.example", Role: audit.RoleAdmin, TenantID: demoTenant}, time.Hour, time.Now())
	c := client{t, base}
	code, body := c.do("POST", "/api/audit-logs/"+ids[1]+"/restore", admin, []byte(`{"version":"after","latestSeen":"`+ids[4]+`"}`))
	var view api.RestoreView
	if json.Unmarshal(body, &view) != nil || code != 202 {
		t.Fatalf("restore: %d %s", code, body)
	}
	var req restorejob.Request
	select {
	case req = <-got:
	case <-ctx.Done():
		t.Fatal("the owner never received the restore request")
	}
	want := `{"integration":{"auth":{"user":"svc"}},"retentionDays":60,"rules":[{"id":"r1","mode":"some"}]}`
	if req.RequestID != view.RequestID || string(req.State) != want || strings.Contains(string(req.ExpectedState)+string(req.State), "secret-v") ||
		req.ExpectedEventID != ids[4] || strings.Join(req.OmittedFields, ",") != "integration.auth.clientSecret" {
		t.Fatalf("request %+v\nwant state %s", req, want)
	}
	// The owner applies it and says so.
	applied, err := owner.Event(auditclient.Applied(req, actor, policyVersion(5), req.State))
	if err != nil {
		t.Fatal(err)
	}
	if err := owner.Publish(ctx, applied); err != nil {
		t.Fatal(err)
	}
	// Applied at once; delivered once the worker has recorded the
	// owner's answer (a webhook owner applies before it answers).
	testenv.Eventually(t, 30*time.Second, func() error {
		code, body = c.do("GET", view.StatusURL, admin, nil)
		if json.Unmarshal(body, &view) != nil || code != 200 || view.Status != restorejob.Applied || view.OutcomeEventID != applied.ID {
			t.Fatalf("status: %d %s", code, body)
		}
		if view.DeliveredAt == nil {
			return fmt.Errorf("not recorded as delivered: %s", body)
		}
		return nil
	})
	code, body = c.do("GET", "/api/resources/recording_policy/"+res.ID+"/history?pageSize=1", admin, nil)
	var h api.HistoryResponse
	if json.Unmarshal(body, &h) != nil || code != 200 || h.Data[0].RestoredFrom != req.RequestID {
		t.Fatalf("history: %d %s", code, body)
	}
	// The secret's changes are in the CSV export as changes of markers,
	// never in clear.
	code, body = c.do("GET", "/api/audit-logs/export.csv?resourceType=recording_policy", admin, nil)
	if code != 200 || strings.Contains(string(body), "secret-v") || !strings.Contains(string(body), "integration.auth.clientSecret") ||
		!strings.Contains(string(body), audit.MaskPrefix) {
		t.Fatalf("export: %d %s", code, body)
	}
}

// noSecretOnDisk fails when any file under dir (the embedded database,
// its write-ahead log, export files, outboxes) holds secret.
func noSecretOnDisk(t *testing.T, dir, secret string) {
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err == nil && bytes.Contains(b, []byte(secret)) {
			t.Errorf("%s holds a secret in clear", path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// increasing is a clock whose readings are at least a millisecond apart,
// so that versions recorded in a row keep their order.
func increasing() func() time.Time {
	var mu sync.Mutex
	var last time.Time
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now := time.Now()
		if now.Before(last.Add(time.Millisecond)) {
			now = last.Add(time.Millisecond)
		}
		last = now
		return now
	}
}

func restoreVars(extra map[string]string) map[string]string {
	vars := map[string]string{"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_JWT_SECRET": "s3cret", "AUDITLOG_INGEST_TOKEN": "svc"}
	for k, v := range extra {
		vars[k] = v
	}
	return vars
}

// TestRestoreThroughKafka: serve publishes the request to the restore
// topic; the owner's consumer (the client package) reads it from the
// real broker, signature checked.
func TestRestoreThroughKafka(t *testing.T) {
	brokers := testenv.KafkaBrokers(t)
	topic := testenv.Name("config-restore-requests")
	// Deployed in order: the topic exists before the owner's consumer
	// joins its group (serve would create it otherwise, in the background).
	tctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := kafka.EnsureTopics(tctx, brokers, kafka.TopicSpec{Name: topic, Partitions: 3}); err != nil {
		t.Fatal(err)
	}
	m := startMain(t, "serve", restoreVars(map[string]string{"AUDITLOG_DATA_DIR": t.TempDir(), "AUDITLOG_RESTORE_BROKERS": strings.Join(brokers, ","),
		"AUDITLOG_RESTORE_TOPIC": topic, "AUDITLOG_RESTORE_SECRET": restoreSecret}))
	owner, err := auditclient.New(auditclient.Config{IngestURL: "http://" + m.Addr(), IngestToken: "svc", Brokers: brokers,
		RestoreTopic: topic, RestoreSecret: []byte(restoreSecret), Now: increasing()})
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close()
	got := make(chan restorejob.Request, 1)
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- owner.ConsumeRestores(ctx, testenv.Name("policy-service"), func(_ context.Context, r restorejob.Request) error { got <- r; return nil }, nil)
	}()
	restoreLoop(t, m, owner, got)
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestRestoreThroughWebhook: without Kafka, serve POSTs the signed
// request to the owner's webhook (the client package's handler).
func TestRestoreThroughWebhook(t *testing.T) {
	got := make(chan restorejob.Request, 1)
	hook := httptest.NewUnstartedServer(nil)
	m := startMain(t, "serve", restoreVars(map[string]string{"AUDITLOG_DATA_DIR": t.TempDir(), "AUDITLOG_RESTORE_WEBHOOK_URL": "http://" + hook.Listener.Addr().String() + "/restores",
		"AUDITLOG_RESTORE_SECRET": restoreSecret}))
	owner, err := auditclient.New(auditclient.Config{IngestURL: "http://" + m.Addr(), IngestToken: "svc", RestoreSecret: []byte(restoreSecret), Now: increasing()})
	if err != nil {
		t.Fatal(err)
	}
	hook.Config.Handler = owner.WebhookHandler(func(_ context.Context, r restorejob.Request) error { got <- r; return nil })
	hook.Start()
	defer hook.Close()
	restoreLoop(t, m, owner, got)
}
