// Package search is the search language's parser, split from the domain
// root (issue 54): Parse reads a q (the API's parameter, the panel's
// search box, a stream's filter, a saved search) into free text and the
// filter's terms, within the language's bounds (MaxQBytes, MaxQTerms,
// MaxQValues, MaxQPrefixes, MinPrefixLength), each qualifier's values
// checked and stored in one form; Alternatives are the other readings of
// a query that found nothing. The terms themselves (audit.Term,
// audit.SearchField) are the root's, as the filter holds them; docs/search.md
// is the language's reference.
package search
