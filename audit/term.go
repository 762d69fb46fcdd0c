package audit

import "time"

// The search language of q (the API's q parameter and the panel's search
// box), one grammar for both stores:
//
//	query   = term { " " term }
//	term    = [ "-" ] ( qualifier ":" values | word | '"' phrase '"' )
//	values  = value { "," value }       ORed; a value may be "quoted"
//	t1 OR t2                            ORs two terms of one qualifier
//
// Terms are ANDed. A qualifier names a field (SearchField); a bare word or
// phrase is free text (the actor's e-mail, user agent, resource id,
// changed field names, the operator's declared reason and the changed
// values: Event.SearchValues), as Filter.Q always was. reason: matches
// the words of the declared reason in order (a phrase), like free text. A value or word ending in
// * is a prefix of at least MinPrefixLength letters or digits (actor and
// free text only). created takes >, >=, <, <= before a date or instant,
// a day (2026-11-11, the whole UTC day) or a range a..b (days inclusive).
//
// An ip: value is an address or a CIDR block, IPv4 or IPv6; it is kept
// as a block (an address is a /32 or /128), an IPv4-mapped IPv6 address
// as its IPv4 form.
//
// Examples: `actor:grace*  -action:access  category:security,cross_tenant`,
// `type:ivr created:>=2026-11-01 "welcome"`, `action:create OR action:delete`.

// SearchField is a qualifier of the search language.
type SearchField string

// The qualifiers, each the field it filters.
const (
	SearchActor       SearchField = "actor"       // actor.email, exact or prefix
	SearchActorID     SearchField = "actor.id"    // actor.id
	SearchRole        SearchField = "role"        // actor.role
	SearchIP          SearchField = "ip"          // actor.ip, an address or a CIDR block
	SearchRequest     SearchField = "request"     // requestId
	SearchReason      SearchField = "reason"      // reason, its words in order
	SearchAction      SearchField = "action"      // action
	SearchType        SearchField = "type"        // resource.type
	SearchResource    SearchField = "resource"    // resource.id
	SearchCategory    SearchField = "category"    // category
	SearchOutcome     SearchField = "outcome"     // outcome
	SearchCrossTenant SearchField = "crossTenant" // crossTenant, true or false
	SearchCreated     SearchField = "created"     // timestamp, compared or a range
	// SearchText is free text only: a negated or ORed word or phrase,
	// as searches parsed before SearchAny stored it.
	SearchText SearchField = "text"
	// SearchAny is a pasted value: free text, and, when the value is one
	// word (search.PasteOf), the event whose id, request id, actor e-mail or
	// resource id it is, or whose actor IP it is or holds. A word that is
	// more than letters (an IP, an e-mail, an id, a URL) and every negated
	// or ORed word or phrase is one; a plain word of letters, a phrase and
	// a prefix alone stay in Filter.Q, free text only.
	SearchAny SearchField = "any"
)

// Term is one term of a search: its values ORed (Values, or for created
// the instants [From, To)), the whole negated with Negate.
type Term struct {
	Field  SearchField `json:"f"`
	Negate bool        `json:"n,omitempty"`
	Values []TermValue `json:"v,omitempty"`
	From   *time.Time  `json:"from,omitempty"`
	To     *time.Time  `json:"to,omitempty"`
}

// TermValue is one value: matched exactly, or as a prefix.
type TermValue struct {
	Text   string `json:"t"`
	Prefix bool   `json:"p,omitempty"`
}
