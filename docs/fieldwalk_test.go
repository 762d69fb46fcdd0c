package docs

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAddingAFieldTakesTheGuidesSteps (issue 54) walks changing.md's "Add
// a field to the audit event" on a copy of the module: it adds an
// optional, personal, free-text field (actor.nickname) to the type alone
// and sees the table's test refuse it by name; then takes the guide's
// other steps that the field needs (the table's entry, Full's value, the
// mapping, the OpenAPI and data-line schemas and the OpenAPI's mask
// fields; it has no rule to validate and no column to index) and runs every every-field test: the API's
// JSON, JSON lines, the data line, the leaf, both decoders, SameEvent,
// the Elasticsearch document and both stores keeping it, the CSV column,
// OCSF's unmapped, a stream's masking and the OpenAPI schema all carry
// it, with no encoder touched.
func TestAddingAFieldTakesTheGuidesSteps(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles a copy of the module (-short)")
	}
	dir := copyModule(t)
	edit(t, dir, "audit/event.go", "\tUserAgent string `json:\"userAgent\"`\n",
		"\tUserAgent string `json:\"userAgent\"`\n\tNickname  string `json:\"nickname,omitempty\"`\n")
	edit(t, dir, "internal/testkit/schematest/schematest.go", `UserAgent: "Mozilla/5.0 Firefox/133.0"}`,
		`UserAgent: "Mozilla/5.0 Firefox/133.0", Nickname: "Sunny Sideup"}`)
	out, err := goTest(dir, "./audit", "^TestEventFieldsDescribeTheType$")
	if err == nil || !strings.Contains(out, "actor.nickname") {
		t.Fatalf("with the field in the type alone, the table's test should refuse it by name (err %v):\n%s", err, out)
	}

	entry := `	{Name: "actor.userAgent", Column: 8, Text: true, Personal: true, str: func(e *Event) *string { return &e.Actor.UserAgent }},` + "\n"
	edit(t, dir, "audit/fields.go", entry, entry+
		`	{Name: "actor.nickname", Optional: true, Text: true, Personal: true, Column: 17, str: func(e *Event) *string { return &e.Actor.Nickname }},`+"\n")
	if out, err := goGenerate(dir, "./mappings"); err != nil {
		t.Fatalf("go generate ./mappings: %v\n%s", err, out)
	}
	if out, err := goGenerate(dir, "./api"); err != nil {
		t.Fatalf("go generate ./api: %v\n%s", err, out)
	}
	for _, run := range [][2]string{
		{"./audit", "^(TestEveryField.*|TestSameEventComparesEveryField|TestEventFieldsDescribeTheType|TestOptionalIsOmitempty)$"},
		{"./export", "^TestEveryField"},
		{"./periodicexport", "^TestEveryFieldInTheDataLine$"},
		{"./mappings", "^TestTheEventsMappingIsGenerated$"},
		{"./elasticsearch", "^(TestEveryFieldInTheDocument|TestDocEncodingIsTheDocument|TestFreeTextIsTheTable|TestConformance)$/^EveryFieldKept$"},
		{"./sqlite", "^TestConformance$/^EveryFieldKept$"},
		{"./ocsf", "^TestEveryFieldInOCSF$"},
		{"./streaming", "^TestEveryPersonalFieldIsMasked$"},
		{"./api", "^(TestTheOpenAPIEventSchemaIsTheType|TestTheOpenAPIMaskFieldsAreTheDomains|TestTheEventSchemasAreGenerated)$"},
	} {
		out, err := goTest(dir, run[0], run[1])
		if err != nil {
			t.Errorf("%s with actor.nickname added by the guide: %v\n%s", run[0], err, out)
			continue
		}
		if strings.Contains(out, "no tests to run") || !strings.Contains(out, "--- PASS") {
			t.Errorf("%s: the every-field tests did not run:\n%s", run[0], out)
		}
	}
}

// goGenerate runs go generate on pkg in dir.
func goGenerate(dir, pkg string) (string, error) {
	cmd := exec.Command("go", "generate", pkg)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// goTest runs go test -v on pkg in dir for the tests run selects.
func goTest(dir, pkg, run string) (string, error) {
	cmd := exec.Command("go", "test", "-count=1", "-v", "-run", run, pkg)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// copyModule copies the module's files (tracked, and new ones not
// ignored) into a temporary directory.
func copyModule(t *testing.T) string {
	t.Helper()
	list, err := exec.Command("git", "-C", "..", "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	dir := t.TempDir()
	for _, name := range strings.Split(strings.TrimRight(string(list), "\x00"), "\x00") {
		b, err := os.ReadFile(filepath.Join("..", name))
		if err != nil {
			continue // deleted in the work tree
		}
		dst := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// edit replaces the one occurrence of old in the copy's file.
func edit(t *testing.T, dir, file, old, new string) {
	t.Helper()
	p := filepath.Join(dir, file)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), old); n != 1 {
		t.Fatalf("%s holds %q %d times, want once: the walk's anchor moved", file, old, n)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}
