package search

import (
	"net/netip"
	"strings"
	"unicode"

	"github.com/auditlog/auditlog/audit"
)

// What people paste into the search box (issue 42): an IP address or
// block, an e-mail, an event id, a request id, a resource id. Free text
// alone does not find all of them (an event's id, request id and actor IP
// are not text of the event), so a value that is one word matches them
// exactly as well (SearchAny).

// Paste is what one free-text value finds besides the text: the events
// whose id (ID), request id or resource id (Exact), actor e-mail (Email)
// equals it, or whose actor IP is in IP when IPOK.
type Paste struct {
	Exact string
	// Resource is Exact as a resource id is stored: a UUID in lower case
	// (its canonical form; audit.Event.Normalize), else as pasted.
	Resource string
	ID       string
	Email    string
	IP       netip.Prefix
	IPOK     bool
}

// PasteOf returns what v finds exactly besides the text, or false when v
// is a prefix or holds white space (a phrase is text only).
func PasteOf(v audit.TermValue) (Paste, bool) {
	if v.Prefix || v.Text == "" || strings.ContainsFunc(v.Text, unicode.IsSpace) {
		return Paste{}, false
	}
	p := Paste{Exact: v.Text, Resource: v.Text, ID: audit.NormalizeID(v.Text), Email: strings.ToLower(v.Text)}
	if audit.ValidUUID(strings.ToLower(v.Text)) {
		p.Resource = strings.ToLower(v.Text)
	}
	if ip, err := ParseIPBlock(v.Text); err == nil {
		p.IP, p.IPOK = ip, true
	}
	return p, true
}

// ParseIPBlock reads an address (a block of one) or a CIDR block, IPv4 or
// IPv6, an IPv4-mapped address as IPv4; host bits are cleared.
func ParseIPBlock(s string) (netip.Prefix, error) {
	if a, err := netip.ParseAddr(s); err == nil {
		a = a.Unmap()
		return netip.PrefixFrom(a.WithZone(""), a.BitLen()), nil
	}
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}, err
	}
	if a := p.Addr(); a.Is4In6() && p.Bits() >= 96 {
		p = netip.PrefixFrom(a.Unmap(), p.Bits()-96)
	}
	return p.Masked(), nil
}
