package didyoumean_test

import (
	"testing"

	"github.com/auditlog/auditlog/internal/didyoumean"
)

func TestClosest(t *testing.T) {
	known := []string{"resourceType", "resourceId", "actorEmail", "pageSize", "serve", "index", "token"}
	for name, want := range map[string]string{
		"resourcetype": " (did you mean resourceType?)", "pagesize": " (did you mean pageSize?)", "actor_email": " (did you mean actorEmail?)",
		"serv": " (did you mean serve?)", "tokne": " (did you mean token?)", "colour": "", "x": "",
	} {
		if got := didyoumean.Suggest(name, known); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", name, got, want)
		}
	}
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"kitten", "sitting", 3}, {"flaw", "lawn", 2}, {"abc", "", 3}} {
		if got := didyoumean.Distance(c.a, c.b); got != c.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
}
