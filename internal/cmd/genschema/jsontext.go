package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// The schema is written by hand around what is generated, in a layout of its own
// (short arrays on one line), so the generated parts are spliced into its text rather
// than the document decoded and encoded again: everything else keeps its bytes.

// span is where a JSON value is written in a document: doc[start:end].
type span struct{ start, end int }

// member is one member of a JSON object as written: its key and where its value is.
type member struct {
	key   string
	value span
}

// valueAt finds the value at a path of object members in a JSON document.
func valueAt(doc []byte, path ...string) (span, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	for depth, key := range path {
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			return span{}, fmt.Errorf("%s is not an object", where(path[:depth]))
		}
		for {
			if !dec.More() {
				return span{}, fmt.Errorf("no %s", where(path[:depth+1]))
			}
			tok, err := dec.Token()
			if err != nil {
				return span{}, err
			}
			if tok == key {
				break
			}
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return span{}, err
			}
		}
	}
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return span{}, fmt.Errorf("%s: %w", where(path), err)
	}
	end := int(dec.InputOffset())
	return span{end - len(raw), end}, nil
}

// members lists the members of the JSON object obj is, their spans within obj.
func members(obj []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("not an object")
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		end := int(dec.InputOffset())
		out = append(out, member{key: tok.(string), value: span{end - len(raw), end}})
	}
	return out, nil
}

// where names a path of members, for messages.
func where(path []string) string {
	if len(path) == 0 {
		return "the document"
	}
	return `"` + strings.Join(path, `"."`) + `"`
}

// replaceValue writes v in place of the value at path, indented as the line it
// starts on.
func replaceValue(doc []byte, v any, path ...string) ([]byte, error) {
	at, err := valueAt(doc, path...)
	if err != nil {
		return nil, err
	}
	text, err := encode(v, indentAt(doc, at.start))
	if err != nil {
		return nil, err
	}
	return splice(doc, at, text), nil
}

// encode writes v as JSON, indented by two spaces a level, its lines after the first
// prefixed with indent, without escaping HTML: <reason> stays as written.
func encode(v any, indent string) ([]byte, error) {
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent(indent, "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n")), nil
}

// indentAt returns the spaces that start the line holding doc[pos].
func indentAt(doc []byte, pos int) string {
	line := doc[bytes.LastIndexByte(doc[:pos], '\n')+1 : pos]
	return string(line[:len(line)-len(bytes.TrimLeft(line, " "))])
}

// splice returns doc with text in place of doc[at.start:at.end].
func splice(doc []byte, at span, text []byte) []byte {
	return bytes.Join([][]byte{doc[:at.start], text, doc[at.end:]}, nil)
}
