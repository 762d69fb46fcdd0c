package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"
)

// renderCompose loads docker-compose.yml as `docker compose config` does
// (compose-go, the loader of docker compose itself): interpolation,
// anchors, validation against the compose schema.
func renderCompose(t *testing.T, environment map[string]string) (*types.Project, error) {
	t.Helper()
	dir, _ := filepath.Abs("../..")
	raw, err := os.ReadFile(filepath.Join(dir, "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	return loader.LoadWithContext(context.Background(), types.ConfigDetails{
		WorkingDir:  dir,
		ConfigFiles: []types.ConfigFile{{Filename: filepath.Join(dir, "docker-compose.yml"), Content: raw}},
		Environment: environment,
	}, func(o *loader.Options) { o.SetProjectName("auditlog", true) })
}

// TestComposeStack checks the Docker stack where no Docker runs: the
// rendered configuration keeps its data on volumes, reaches Kafka from the
// host, requires its secrets, checks health with the binary, and sets
// only variables the commands read; the image owns its data directory and
// is stamped with its version; the build context leaves local data out.
func TestComposeStack(t *testing.T) {
	if _, err := renderCompose(t, map[string]string{}); err == nil || !strings.Contains(err.Error(), "AUDITLOG_JWT_SECRET") {
		t.Fatalf("without secrets the stack must refuse to render, naming the variable: %v", err)
	}
	p, err := renderCompose(t, map[string]string{"AUDITLOG_JWT_SECRET": "s", "AUDITLOG_INGEST_TOKEN": "i", "AUDITLOG_VERSION": "v1.2.3", "AUDITLOG_MASK_KEY": "m",
		"AUDITLOG_RESTORE_SECRET": "r"})
	if err != nil {
		t.Fatal(err)
	}
	svc := func(name string) types.ServiceConfig {
		s, ok := p.Services[name]
		if !ok {
			t.Fatalf("service %s missing", name)
		}
		return s
	}
	if img := svc("elasticsearch").Image; !strings.Contains(img, ":8.19.") {
		t.Errorf("elasticsearch image %q, want 8.19.x", img)
	}
	envOf := func(s types.ServiceConfig, k string) string {
		if v := s.Environment[k]; v != nil {
			return *v
		}
		return ""
	}
	// Kafka keeps topics and offsets on its volume, and has a listener
	// for the host on loopback.
	kafka := svc("kafka")
	if dir := envOf(kafka, "KAFKA_LOG_DIRS"); dir == "" || !mountedVolume(kafka, dir) {
		t.Errorf("KAFKA_LOG_DIRS %q is not on a named volume: topics and offsets would be lost with the container", dir)
	}
	if !strings.Contains(envOf(kafka, "KAFKA_ADVERTISED_LISTENERS"), "HOST://localhost:9094") || !published(kafka, "127.0.0.1", 9094) {
		t.Errorf("Kafka must advertise localhost:9094 and publish it on 127.0.0.1: %q %+v", envOf(kafka, "KAFKA_ADVERTISED_LISTENERS"), kafka.Ports)
	}
	for _, name := range []string{"serve", "index", "stream"} {
		s := svc(name)
		if len(s.Command) != 1 || s.Command[0] != name {
			t.Errorf("%s runs %v", name, s.Command)
		}
		if s.HealthCheck == nil || !slices.Equal(s.HealthCheck.Test, types.HealthCheckTest{"CMD", "/usr/local/bin/auditlog", "healthcheck"}) {
			t.Errorf("%s healthcheck: %+v, want the binary's healthcheck", name, s.HealthCheck)
		}
		if s.Build == nil || s.Build.Args["VERSION"] == nil || *s.Build.Args["VERSION"] != "v1.2.3" {
			t.Errorf("%s build does not pass the version: %+v", name, s.Build)
		}
		_, b, _ := parseServerConfig(name, []string{"-help"}, func(string) string { return "" }, io.Discard, io.Discard)
		known := map[string]bool{}
		for _, o := range b.options {
			known[o.env] = true
		}
		for k := range s.Environment {
			if strings.HasPrefix(k, "AUDITLOG_") && !known[k] {
				t.Errorf("%s sets %s, which `auditlog %s` does not read", name, k, name)
			}
		}
	}
	serve := svc("serve")
	if envOf(serve, "AUDITLOG_MASK_KEY") != "m" || envOf(svc("index"), "AUDITLOG_MASK_KEY") != "m" {
		t.Errorf("serve and index must mask with the same key: %q %q", envOf(serve, "AUDITLOG_MASK_KEY"), envOf(svc("index"), "AUDITLOG_MASK_KEY"))
	}
	if envOf(serve, "AUDITLOG_JWT_SECRET") != "s" || envOf(serve, "AUDITLOG_INGEST_TOKEN") != "i" {
		t.Errorf("serve secrets: %q %q", envOf(serve, "AUDITLOG_JWT_SECRET"), envOf(serve, "AUDITLOG_INGEST_TOKEN"))
	}
	if _, waits := serve.DependsOn["kafka"]; waits || envOf(serve, "AUDITLOG_KAFKA_BROKERS") != "" {
		t.Errorf("serve does not consume Kafka and must not wait for it: %+v", serve.DependsOn)
	}
	if envOf(serve, "AUDITLOG_RESTORE_BROKERS") != "kafka:9092" || envOf(serve, "AUDITLOG_RESTORE_SECRET") != "r" {
		t.Errorf("serve publishes signed restore requests to Kafka: %q %q", envOf(serve, "AUDITLOG_RESTORE_BROKERS"), envOf(serve, "AUDITLOG_RESTORE_SECRET"))
	}
	// The signing key is a file mounted into serve, the one make up
	// writes; the cluster never holds it.
	key := envOf(serve, "AUDITLOG_PERIODIC_SIGNING_KEY")
	if len(serve.Secrets) != 2 || key != "/run/secrets/"+serve.Secrets[0].Source || p.Secrets[serve.Secrets[0].Source].File != filepath.Join(p.WorkingDir, ".secrets", "signing-key.pem") {
		t.Errorf("serve's signing key %q is not the mounted .secrets/signing-key.pem: %+v %+v", key, serve.Secrets, p.Secrets)
	}
	// The acceptance key, one file mounted into serve, index and stream:
	// what index (and stream, its pause records) tags, serve's sealer
	// checks.
	for _, name := range []string{"serve", "index", "stream"} {
		s := svc(name)
		mounted := slices.ContainsFunc(s.Secrets, func(r types.ServiceSecretConfig) bool {
			return envOf(s, "AUDITLOG_ACCEPT_KEY") == "/run/secrets/"+r.Source && p.Secrets[r.Source].File == filepath.Join(p.WorkingDir, ".secrets", "accept-key")
		})
		if !mounted {
			t.Errorf("%s's acceptance key %q is not the mounted .secrets/accept-key: %+v", name, envOf(s, "AUDITLOG_ACCEPT_KEY"), s.Secrets)
		}
	}
	// The streams' masking key, mounted into stream, which delivers them.
	stream := svc("stream")
	if k := envOf(stream, "AUDITLOG_STREAM_MASK_KEY"); len(stream.Secrets) != 2 || k != "/run/secrets/"+stream.Secrets[0].Source ||
		p.Secrets[stream.Secrets[0].Source].File != filepath.Join(p.WorkingDir, ".secrets", "stream-mask-key") {
		t.Errorf("stream's masking key %q is not the mounted .secrets/stream-mask-key: %+v", k, stream.Secrets)
	}
	if up, _ := os.ReadFile("../../scripts/up.sh"); !strings.Contains(string(up), "-out .secrets/signing-key.pem") || !strings.Contains(string(up), ">.secrets/accept-key") ||
		!strings.Contains(string(up), ">.secrets/stream-mask-key") {
		t.Error("make up does not write .secrets/signing-key.pem, .secrets/accept-key and .secrets/stream-mask-key")
	}
	if dir := envOf(serve, "AUDITLOG_DATA_DIR"); dir != "/data" || !mountedVolume(serve, dir) {
		t.Errorf("serve's data directory %q is not its volume", dir)
	}
	checkImage(t)
}

// mountedVolume tells whether dir is the target of a named volume of s.
func mountedVolume(s types.ServiceConfig, dir string) bool {
	for _, v := range s.Volumes {
		if v.Type == types.VolumeTypeVolume && v.Target == dir {
			return true
		}
	}
	return false
}

func published(s types.ServiceConfig, ip string, port uint32) bool {
	for _, p := range s.Ports {
		if p.HostIP == ip && p.Target == port && p.Published == "9094" {
			return true
		}
	}
	return false
}

// checkImage reads the Dockerfile and .dockerignore: the distroless
// nonroot user (65532) owns /data, the version is stamped, the binary is
// the healthcheck, and local data, secrets and build output stay out of
// the build context.
func checkImage(t *testing.T) {
	raw, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	df := string(raw)
	for _, re := range []string{
		`(?m)^FROM gcr\.io/distroless/static-debian12:nonroot$`,
		`(?m)^COPY --from=build --chown=65532:65532 \S+ /data$`,
		`(?m)^ENV AUDITLOG_DATA_DIR=/data$`,
		`(?m)^USER nonroot$`,
		`-X main\.version=\$\{VERSION\}`,
		`(?m)^HEALTHCHECK .*\["/usr/local/bin/auditlog", "healthcheck"\]$`,
	} {
		if !regexp.MustCompile(re).MatchString(df) {
			t.Errorf("Dockerfile does not match %s", re)
		}
	}
	ign, err := os.ReadFile("../../.dockerignore")
	if err != nil {
		t.Fatalf(".dockerignore: %v", err)
	}
	lines := strings.Split(string(ign), "\n")
	for _, want := range []string{".git", ".env", "/data/", "/bin/", "/.secrets/"} {
		if !slices.Contains(lines, want) {
			t.Errorf(".dockerignore does not exclude %s", want)
		}
	}
}
