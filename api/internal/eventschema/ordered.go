package eventschema

import (
	"bytes"
	"fmt"
	"io"

	"github.com/go-json-experiment/json/jsontext"
)

// node is a JSON value that keeps its members' order, so that a document
// written by hand reads back and is written again byte for byte: the
// generator rewrites a few schemas of api/openapi.json and leaves the rest
// as it was. (encoding/json's maps sort keys; a hand-kept document's
// order is part of how it reads.)
type node struct {
	kind    jsontext.Kind // '{', '[' or a scalar's
	members []member      // an object's
	items   []*node       // an array's
	raw     jsontext.Value
}

type member struct {
	name  string
	value *node
}

func parse(b []byte) (*node, error) {
	d := jsontext.NewDecoder(bytes.NewReader(b))
	n, err := read(d)
	if err != nil {
		return nil, err
	}
	if _, err := d.ReadToken(); err != io.EOF {
		return nil, fmt.Errorf("data after the document's value")
	}
	return n, nil
}

func read(d *jsontext.Decoder) (*node, error) {
	switch k := d.PeekKind(); k {
	case '{', '[':
		if _, err := d.ReadToken(); err != nil {
			return nil, err
		}
		n := &node{kind: k}
		for d.PeekKind() != k+2 { // '}' is '{'+2, ']' is '['+2
			if k == '{' {
				tok, err := d.ReadToken()
				if err != nil {
					return nil, err
				}
				name := tok.String() // before the next read voids the token
				v, err := read(d)
				if err != nil {
					return nil, err
				}
				n.members = append(n.members, member{name, v})
				continue
			}
			v, err := read(d)
			if err != nil {
				return nil, err
			}
			n.items = append(n.items, v)
		}
		_, err := d.ReadToken()
		return n, err
	default:
		v, err := d.ReadValue()
		if err != nil {
			return nil, err
		}
		return &node{kind: k, raw: bytes.Clone(v)}, nil
	}
}

// format writes n as Python's json.dumps(indent=2, ensure_ascii=False)
// does, the style of the project's JSON documents, with a final newline.
func format(n *node) []byte {
	var b bytes.Buffer
	write(&b, n, "")
	b.WriteByte('\n')
	return b.Bytes()
}

func write(b *bytes.Buffer, n *node, indent string) {
	in := indent + "  "
	switch n.kind {
	case '{':
		if len(n.members) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for i, m := range n.members {
			if i > 0 {
				b.WriteString(",\n")
			}
			name, _ := jsontext.AppendQuote(nil, m.name)
			b.WriteString(in)
			b.Write(name)
			b.WriteString(": ")
			write(b, m.value, in)
		}
		b.WriteString("\n" + indent + "}")
	case '[':
		if len(n.items) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, v := range n.items {
			if i > 0 {
				b.WriteString(",\n")
			}
			b.WriteString(in)
			write(b, v, in)
		}
		b.WriteString("\n" + indent + "]")
	default:
		b.Write(n.raw)
	}
}

// get returns the member name of an object (nil: none).
func (n *node) get(name string) *node {
	for _, m := range n.members {
		if m.name == name {
			return m.value
		}
	}
	return nil
}

// set puts the member name, in its place when there is one, else last.
func (n *node) set(name string, v *node) {
	for i := range n.members {
		if n.members[i].name == name {
			n.members[i].value = v
			return
		}
	}
	n.members = append(n.members, member{name, v})
}

// path returns the object at the members' names from n (nil: none).
func (n *node) path(names ...string) *node {
	for _, name := range names {
		if n == nil {
			return nil
		}
		n = n.get(name)
	}
	return n
}

func str(s string) *node {
	q, _ := jsontext.AppendQuote(nil, s)
	return &node{kind: '"', raw: q}
}

func strs(ss []string) *node {
	n := &node{kind: '['}
	for _, s := range ss {
		n.items = append(n.items, str(s))
	}
	return n
}

func object(members ...member) *node { return &node{kind: '{', members: members} }
