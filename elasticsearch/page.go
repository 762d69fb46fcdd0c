package elasticsearch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/auditlog/auditlog/audit"
)

// pageHits is one list search's answer: the total and the hits' sources,
// in order.
type pageHits struct {
	Total    int64
	Relation string
	Sources  []json.RawMessage
	// Cut: the page stopped early at audit.MaxPageBytes; more hits followed.
	Cut bool
}

// searchPage runs a list search and decodes its hits as they arrive,
// stopping once the page's events reach audit.MaxPageBytes (the rest of
// the answer is not read), so a page of large events cannot hold a
// quarter of a gigabyte in this process. The exchange is bounded by the
// client's request timeout, as Do bounds it.
func (s *Store) searchPage(ctx context.Context, tenantID string, body map[string]any) (pageHits, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return pageHits{}, audit.Wrap(audit.EINTERNAL, err, "elasticsearch: encoding request")
	}
	ctx, cancel := context.WithTimeout(ctx, s.c.cfg.RequestTimeout)
	defer cancel()
	path, err := s.searchPath(ctx, tenantID)
	if err != nil {
		return pageHits{}, err
	}
	path += "&filter_path=hits.total,hits.hits._source"
	res, err := s.c.Stream(ctx, http.MethodPost, path, raw)
	if err != nil {
		return pageHits{}, err
	}
	defer res.Body.Close()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		b, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
		return pageHits{}, StatusError(http.MethodPost, path, &Response{Status: res.StatusCode, Header: res.Header, Body: b})
	}
	out, err := decodePage(json.NewDecoder(res.Body))
	if err != nil {
		if ctx.Err() != nil {
			return pageHits{}, audit.Wrap(audit.EUNAVAILABLE, err, "elasticsearch: the answer did not arrive in time")
		}
		return pageHits{}, audit.Wrap(audit.EUNAVAILABLE, err, "elasticsearch: reading the answer failed")
	}
	return out, nil
}

// errPageFull stops the decoding of a page that reached its budget.
var errPageFull = errors.New("page full")

// decodePage reads {"hits":{"total":{…},"hits":[{"_source":…},…]}} token
// by token, within the page budget.
func decodePage(dec *json.Decoder) (pageHits, error) {
	var out pageHits
	var budget audit.PageBudget
	err := object(dec, func(key string) (bool, error) {
		if key != "hits" {
			return true, skip(dec)
		}
		return true, object(dec, func(key string) (bool, error) {
			switch key {
			case "total":
				var t struct {
					Value    int64  `json:"value"`
					Relation string `json:"relation"`
				}
				err := dec.Decode(&t)
				out.Total, out.Relation = t.Value, t.Relation
				return true, err
			case "hits":
				if err := expect(dec, json.Delim('[')); err != nil {
					return false, err
				}
				for dec.More() {
					var h struct {
						Source json.RawMessage `json:"_source"`
					}
					if err := dec.Decode(&h); err != nil {
						return false, err
					}
					if !budget.Fits(len(h.Source)) {
						out.Cut = true
						return false, errPageFull // stop reading: the rest is not needed
					}
					out.Sources = append(out.Sources, h.Source)
				}
				return true, expect(dec, json.Delim(']'))
			}
			return true, skip(dec)
		})
	})
	if errors.Is(err, errPageFull) {
		err = nil
	}
	return out, err
}

// object reads a JSON object's keys, calling f with each one positioned on
// its value; f returns false with an error to stop reading.
func object(dec *json.Decoder, f func(key string) (bool, error)) error {
	if err := expect(dec, json.Delim('{')); err != nil {
		return err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, ok := tok.(string)
		if !ok {
			return fmt.Errorf("expected an object key, got %v", tok)
		}
		more, err := f(key)
		if err != nil || !more {
			return err
		}
	}
	return expect(dec, json.Delim('}'))
}

func expect(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok != want {
		return fmt.Errorf("expected %v, got %v", want, tok)
	}
	return nil
}

func skip(dec *json.Decoder) error {
	var v json.RawMessage
	return dec.Decode(&v)
}
