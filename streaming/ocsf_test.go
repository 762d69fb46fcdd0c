package streaming_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/audit/stream"

	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/testkit/splunkhec"
	"github.com/auditlog/auditlog/streaming/splunk"
)

// TestOCSFStreamToSplunk: a stream in the OCSF format delivers each of
// its tenant's events as an OCSF event (package ocsf's mapping, validated
// there against the schema) with the sourcetype auditlog:ocsf, Splunk's
// time its time, metadata.sequence its leaf index and metadata.tenant_uid
// its tenant; the stream's masking applies before the mapping (a hashed
// IP is the source's uid, a dropped e-mail nowhere).
func TestOCSFStreamToSplunk(t *testing.T) {
	store, d := sealedStore(t)
	hec := splunkhec.Start("12345678-9abc-def0-1234-56789abcdef0")
	t.Cleanup(hec.Close)
	client := splunk.NewClient(true, 10*time.Second)
	client.HTTP.Transport.(*http.Transport).TLSClientConfig = hec.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	st := &stream.Stream{ID: "6c0e7c1e-2f3a-4b5c-8d9e-0f1a2b3c4d5e", TenantID: d.A, Name: "OCSF", Format: stream.FormatOCSF, State: stream.Active, CreatedAt: time.Now(),
		Mask:        map[string]string{"actor.ip": stream.MaskHash, "actor.email": stream.MaskDrop},
		Destination: stream.NewDestination(&splunk.Config{URL: hec.URL, Token: hec.Token})}
	s := streamer(t, store, st, 250, client)
	drain(t, s, st)
	byID := map[string]audit.Event{}
	for _, e := range d.Events {
		byID[e.ID] = e
	}
	got := hec.Indexed()
	if len(got) != len(d.Events) {
		t.Fatalf("indexed %d events, want %d", len(got), len(d.Events))
	}
	for _, h := range got {
		var ev struct {
			ClassUID int   `json:"class_uid"`
			Time     int64 `json:"time"`
			Metadata struct {
				UID       string  `json:"uid"`
				TenantUID string  `json:"tenant_uid"`
				Sequence  float64 `json:"sequence"`
			} `json:"metadata"`
			Actor struct {
				User map[string]any `json:"user"`
			} `json:"actor"`
			SrcEndpoint map[string]string `json:"src_endpoint"`
		}
		if err := json.Unmarshal(h.Event, &ev); err != nil {
			t.Fatal(err)
		}
		src, ok := byID[ev.Metadata.UID]
		switch {
		case !ok || ev.Metadata.TenantUID != d.A || src.TenantID != d.A:
			t.Fatalf("an event %q of tenant %q in a stream of %s", ev.Metadata.UID, ev.Metadata.TenantUID, d.A)
		case h.Sourcetype != "auditlog:ocsf" || ev.ClassUID == 0:
			t.Fatalf("sourcetype %q, class %d", h.Sourcetype, ev.ClassUID)
		case ev.Metadata.Sequence != h.Fields["leaf_index"]:
			t.Fatalf("metadata.sequence %v, leaf_index %v", ev.Metadata.Sequence, h.Fields["leaf_index"])
		case ev.Time != src.Timestamp.UnixMilli() || h.Time.String() != json.Number(formatSeconds(ev.Time)).String():
			t.Fatalf("time %d, Splunk's %s, the event's %s", ev.Time, h.Time, src.Timestamp)
		case src.Actor.IP != "" && (!strings.HasPrefix(ev.SrcEndpoint["uid"], "hmac-sha256:") || ev.SrcEndpoint["ip"] != ""),
			src.Actor.IP == "" && ev.SrcEndpoint["name"] != "unknown":
			t.Fatalf("the hashed IP: %v", ev.SrcEndpoint)
		case ev.Actor.User["email_addr"] != nil || ev.Actor.User["name"] != nil:
			t.Fatalf("the dropped e-mail: %v", ev.Actor.User)
		}
	}
}

// formatSeconds is milliseconds as Splunk's time, seconds with a fraction.
func formatSeconds(ms int64) string {
	b, _ := json.Marshal(float64(ms) / 1000)
	return string(b)
}
