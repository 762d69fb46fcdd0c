package storetest

import (
	"encoding/json"
	"fmt"
	"github.com/auditlog/auditlog/audit/search"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/auditlog/auditlog/audit"
)

// searched is the filter of a search-language query (search.Parse),
// for cases whose expectation is computed from the events themselves.
func searched(q string) func(*Dataset) audit.Filter {
	return func(*Dataset) audit.Filter {
		text, terms, err := search.Parse(q)
		if err != nil {
			panic(q + ": " + err.Error())
		}
		return audit.Filter{Q: text, Terms: terms}
	}
}

// in reports whether the event's address is in the block.
func in(e *audit.Event, block string) bool {
	a, err := netip.ParseAddr(e.Actor.IP)
	return err == nil && netip.MustParsePrefix(block).Contains(a.Unmap())
}

// findable reports whether free text finds phrase in e, computed here
// from the event: the tokens (tokens: the word model's words, folded) of
// phrase next to each other in one of its texts (texts).
func findable(e *audit.Event, phrase string) bool {
	want := tokens(phrase)
	for _, t := range texts(e) {
		if containsRun(tokens(t), want) {
			return true
		}
	}
	return false
}

// texts are the texts free text searches in e, one value each: its
// e-mail, user agent, resource id, reason, changed field names and every
// string, number or boolean in its diff.
func texts(e *audit.Event) []string {
	texts := []string{e.Actor.Email, e.Actor.UserAgent, e.Resource.ID, e.Reason}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for _, y := range x {
				walk(y)
			}
		case []any:
			for _, y := range x {
				walk(y)
			}
		case nil:
		default:
			texts = append(texts, fmt.Sprint(x))
		}
	}
	for k, c := range e.Diff {
		texts = append(texts, k)
		for _, raw := range []json.RawMessage{c.From, c.To} {
			var v any
			if json.Unmarshal(raw, &v) == nil {
				walk(v)
			}
		}
	}
	return texts
}

// containsRun reports whether want stands in got, in order, adjacent.
func containsRun(got, want []string) bool {
	for i := 0; i+len(want) <= len(got); i++ {
		if slices.Equal(got[i:i+len(want)], want) {
			return true
		}
	}
	return false
}

func firefox(e *audit.Event) bool { return strings.Contains(e.Actor.UserAgent, "Firefox/") }

// searchCases are the search language's qualifiers, negation, OR, lists,
// prefixes and time comparisons, each with its expectation written
// directly over the events.
func searchCases() []Case {
	return append(append(fieldCases(), addressCases()...), pasteCases()...)
}

// pastedIn is what a pasted word finds, computed from the event: its
// text, or its id, request id, resource id or e-mail equal to the word
// (in any case), or its address in the word's block.
func pastedIn(e *audit.Event, w string) bool {
	if findable(e, w) || strings.EqualFold(e.ID, w) || strings.EqualFold(e.RequestID, w) || strings.EqualFold(e.Resource.ID, w) || strings.EqualFold(e.Actor.Email, w) {
		return true
	}
	a, err := netip.ParseAddr(e.Actor.IP)
	if err != nil {
		return false
	}
	if b, err := netip.ParseAddr(w); err == nil {
		return a.Unmap() == b.Unmap()
	}
	p, err := netip.ParsePrefix(w)
	return err == nil && p.Contains(a.Unmap())
}

// pasteCases (issue 42): what people paste into the search box, alone,
// found on both stores alike.
func pasteCases() []Case {
	desc := audit.DefaultSort
	paste := func(name string, word func(d *Dataset) string) Case {
		return Case{"paste: " + name, func(d *Dataset) audit.Filter { return searched(word(d))(d) },
			func(d *Dataset, e *audit.Event) bool { return pastedIn(e, word(d)) }, desc}
	}
	firstIP := func(v6 bool) func(d *Dataset) string {
		return func(d *Dataset) string {
			for _, e := range d.Events {
				if a := netip.MustParseAddr(e.Actor.IP); a.Is6() == v6 {
					if v6 {
						return strings.ToUpper(netip.AddrFrom16(a.As16()).StringExpanded())
					}
					return e.Actor.IP
				}
			}
			panic("no such address in the data")
		}
	}
	negated := paste("an address, negated", firstIP(false))
	negated.Filter = func(d *Dataset) audit.Filter { return searched("-" + firstIP(false)(d))(d) }
	negated.Keep = func(d *Dataset, e *audit.Event) bool { return !pastedIn(e, firstIP(false)(d)) }
	return []Case{
		paste("an IPv4 address", firstIP(false)),
		paste("an IPv6 address, expanded and upper-case", firstIP(true)),
		paste("an IPv4 block", func(d *Dataset) string {
			return netip.PrefixFrom(netip.MustParseAddr(firstIP(false)(d)), 16).Masked().String()
		}),
		paste("an e-mail in capitals", func(d *Dataset) string { return strings.ToUpper(d.Events[3].Actor.Email) }),
		paste("an event id", func(d *Dataset) string { return d.Events[4].ID }),
		paste("a request id", func(d *Dataset) string { return d.Events[9].RequestID }),
		paste("a resource id", func(d *Dataset) string { return d.Events[17].Resource.ID }),
		paste("a resource id in capitals", func(d *Dataset) string { return strings.ToUpper(d.Events[17].Resource.ID) }),
		paste("an event id in capitals", func(d *Dataset) string { return strings.ToUpper(d.Events[4].ID) }),
		paste("a ticket in a reason", func(*Dataset) string { return "INC-207" }),
		paste("a word inside a host name", func(*Dataset) string { return "relay" }),
		paste("a host name", func(*Dataset) string { return "hooks.zendesk-relay.example" }),
		paste("a word inside a URL's path", func(*Dataset) string { return "inbound" }),
		negated,
	}
}

// addressCases are ip:, role: and request:.
func addressCases() []Case {
	desc := audit.DefaultSort
	return []Case{
		{"search: one address", func(d *Dataset) audit.Filter { return searched("ip:" + d.Events[7].Actor.IP)(d) },
			func(d *Dataset, e *audit.Event) bool { return e.Actor.IP == d.Events[7].Actor.IP }, desc},
		{"search: an IPv6 address in another spelling", func(d *Dataset) audit.Filter {
			for _, e := range d.Events {
				if a := netip.MustParseAddr(e.Actor.IP); a.Is6() {
					return searched("ip:" + strings.ToUpper(netip.AddrFrom16(a.As16()).StringExpanded()))(d)
				}
			}
			panic("no IPv6 address in the data")
		}, func(d *Dataset, e *audit.Event) bool {
			for _, x := range d.Events {
				if a := netip.MustParseAddr(x.Actor.IP); a.Is6() {
					return e.Actor.IP == x.Actor.IP
				}
			}
			return false
		}, desc},
		{"search: IPv4 blocks ORed", searched("ip:198.0.0.0/8 OR ip:100.64.0.0/10"),
			func(_ *Dataset, e *audit.Event) bool { return in(e, "198.0.0.0/8") || in(e, "100.64.0.0/10") }, desc},
		{"search: not an IPv6 block", searched("-ip:2001:db8::/32"),
			func(_ *Dataset, e *audit.Event) bool { return !in(e, "2001:db8::/32") }, audit.Sort{Field: audit.SortAction}},
		{"search: role and request", func(d *Dataset) audit.Filter {
			return searched("role:" + d.Events[9].Actor.Role + " request:" + d.Events[9].RequestID + "," + d.Events[11].RequestID)(d)
		}, func(d *Dataset, e *audit.Event) bool {
			return e.Actor.Role == d.Events[9].Actor.Role && (e.RequestID == d.Events[9].RequestID || e.RequestID == d.Events[11].RequestID)
		}, desc},
		{"search: not a role", func(d *Dataset) audit.Filter { return searched("-role:" + d.Events[9].Actor.Role)(d) },
			func(d *Dataset, e *audit.Event) bool { return e.Actor.Role != d.Events[9].Actor.Role }, desc},
	}
}

// fieldCases are the other qualifiers and free text.
func fieldCases() []Case {
	desc := audit.DefaultSort
	day := func(d int) time.Time { return time.Date(2026, 10, d, 0, 0, 0, 0, time.UTC) }
	return []Case{
		{"search: -action:access", searched("-action:access"),
			func(_ *Dataset, e *audit.Event) bool { return e.Action != audit.ActionAccess }, desc},
		{"search: actor prefix", func(d *Dataset) audit.Filter {
			return searched("actor:" + strings.ToUpper(d.Events[3].Actor.Email[:4]) + "*")(d)
		}, func(d *Dataset, e *audit.Event) bool {
			return strings.HasPrefix(strings.ToLower(e.Actor.Email), strings.ToLower(d.Events[3].Actor.Email[:4]))
		}, desc},
		{"search: action OR action", searched("action:create OR action:delete"),
			func(_ *Dataset, e *audit.Event) bool {
				return e.Action == audit.ActionCreate || e.Action == audit.ActionDelete
			}, desc},
		{"search: a list and a negated category", searched("type:ivr,queue,recording -category:security"),
			func(_ *Dataset, e *audit.Event) bool {
				return (e.Resource.Type == "ivr" || e.Resource.Type == "queue" || e.Resource.Type == "recording") && e.Category != audit.CategorySecurity
			}, audit.Sort{Field: audit.SortResourceType}},
		{"search: created days, inclusive", searched("created:2026-10-10..2026-10-19"),
			func(_ *Dataset, e *audit.Event) bool {
				return !e.Timestamp.Before(day(10)) && e.Timestamp.Before(day(20))
			}, desc},
		{"search: created between instants", searched("created:>=2026-10-12T06:00:00Z created:<2026-10-15T00:00:00+02:00"),
			func(_ *Dataset, e *audit.Event) bool {
				return !e.Timestamp.Before(day(12).Add(6*time.Hour)) && e.Timestamp.Before(day(14).Add(22*time.Hour))
			}, audit.Sort{Field: audit.SortTimestamp}},
		{"search: -crossTenant:true outcome:failure", searched("-crossTenant:true outcome:failure"),
			func(_ *Dataset, e *audit.Event) bool { return !e.CrossTenant && e.Outcome == audit.OutcomeFailure }, desc},
		{"search: negated free text", searched("-Firefox"),
			func(_ *Dataset, e *audit.Event) bool { return !firefox(e) }, desc},
		{"search: free text OR a prefix", searched("Firefox OR maxWait*"),
			func(_ *Dataset, e *audit.Event) bool { _, ok := e.Diff["maxWaitSeconds"]; return firefox(e) || ok }, desc},
		{"search: resource and actor id, negated", func(d *Dataset) audit.Filter {
			return searched("resource:" + strings.ToUpper(d.Events[17].Resource.ID) + " -actor.id:" + d.Events[5].Actor.ID)(d)
		}, func(d *Dataset, e *audit.Event) bool {
			return e.Resource.ID == d.Events[17].Resource.ID && e.Actor.ID != d.Events[5].Actor.ID
		}, desc},
		{"search: a changed value", searched("Welcome"),
			func(_ *Dataset, e *audit.Event) bool { return findable(e, "welcome") }, desc},
		{"search: a changed number OR a changed value", searched("365 OR supervisor"),
			func(_ *Dataset, e *audit.Event) bool { return findable(e, "365") || findable(e, "supervisor") }, desc},
		{"search: a ticket in the declared reason", searched("CS-4821"),
			func(_ *Dataset, e *audit.Event) bool { return findable(e, "cs-4821") }, desc},
		{"search: reason:, a phrase", searched(`reason:"incident INC-207"`),
			func(_ *Dataset, e *audit.Event) bool {
				return containsRun(tokens(e.Reason), []string{"incident", "inc", "207"})
			}, desc},
		{"search: operator accesses without a ticket's reason", searched("crossTenant:true -reason:CS-4821"),
			func(_ *Dataset, e *audit.Event) bool {
				return e.CrossTenant && !containsRun(tokens(e.Reason), []string{"cs", "4821"})
			}, desc},
		{"search: five qualifiers, a negation and a word", searched("action:access,update -outcome:failure category:sensitive_access,configuration created:>=2026-10-05 -type:did Firefox"),
			func(_ *Dataset, e *audit.Event) bool {
				return (e.Action == audit.ActionAccess || e.Action == audit.ActionUpdate) && e.Outcome != audit.OutcomeFailure &&
					(e.Category == audit.CategorySensitiveAccess || e.Category == audit.CategoryConfiguration) &&
					!e.Timestamp.Before(day(5)) && e.Resource.Type != "did" && firefox(e)
			}, audit.Sort{Field: audit.SortActorEmail, Desc: true}},
	}
}
