package protocol

import (
	"bytes"
	"encoding/json"
	"slices"
)

// KeyOrder is the order the members of a JSON value's objects were written in, where it
// is not sorted order: that of an object's members (Keys) and, for each of them, of the
// value it holds (Next, by Keys' index), or for a list that of each item (Next, by the
// item's index; Keys nil). A nil KeyOrder, or a nil entry of Next, is no order: the
// value's objects are written with their members sorted, as encoding/json writes a map.
//
// An event read from an agent keeps the order of its nested objects in one (Event.Order)
// so that a recording, and its replay, write them as the agent did: a client that
// numbers ids in the order it first meets them (the AG-UI Dojo's trace check does) sees
// the same numbers.
type KeyOrder struct {
	Keys []string
	Next []*KeyOrder
}

// Member returns the order of the value of an object's member, or nil.
func (o *KeyOrder) Member(name string) *KeyOrder {
	if o == nil {
		return nil
	}
	for i, k := range o.Keys {
		if k == name && i < len(o.Next) {
			return o.Next[i]
		}
	}
	return nil
}

// Item returns the order of a list's item, or nil.
func (o *KeyOrder) Item(i int) *KeyOrder {
	if o == nil || i >= len(o.Next) {
		return nil
	}
	return o.Next[i]
}

// ObjectOrder is the order of an object's members given as the orders of its values,
// by name, or nil when none of them has one.
func ObjectOrder(keys []string, next []*KeyOrder) *KeyOrder {
	if !slices.ContainsFunc(next, func(o *KeyOrder) bool { return o != nil }) && (len(keys) < 2 || slices.IsSorted(keys)) {
		return nil
	}
	return &KeyOrder{Keys: keys, Next: next}
}

// ListOrder is the order of a list given as the orders of its items, or nil when none
// of them has one.
func ListOrder(items []*KeyOrder) *KeyOrder {
	if !slices.ContainsFunc(items, func(o *KeyOrder) bool { return o != nil }) {
		return nil
	}
	return &KeyOrder{Next: items}
}

// eventKeyOrder reads a valid JSON object's members in the order written (a key written
// twice counts once, as decoding keeps its last value) and the order of the objects
// nested in it, as the order of the event's fields by name.
func eventKeyOrder(data []byte) (keys []string, order *KeyOrder) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // {
		return nil, nil
	}
	var nested []string
	var next []*KeyOrder
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return keys, nil
		}
		key, _ := tok.(string)
		o, ok := valueKeyOrder(dec)
		if !ok {
			return keys, nil
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		keys = append(keys, key)
		if o != nil {
			nested, next = append(nested, key), append(next, o)
		}
	}
	if len(nested) == 0 {
		return keys, nil
	}
	return keys, &KeyOrder{Keys: nested, Next: next}
}

// valueKeyOrder reads one JSON value from dec and returns the order of its objects.
func valueKeyOrder(dec *json.Decoder) (*KeyOrder, bool) {
	tok, err := dec.Token()
	if err != nil {
		return nil, false
	}
	delim, ok := tok.(json.Delim)
	if !ok {
		return nil, true
	}
	var keys []string
	var next []*KeyOrder
	for dec.More() {
		if delim == '{' {
			tok, err := dec.Token()
			if err != nil {
				return nil, false
			}
			key, _ := tok.(string)
			if i := slices.Index(keys, key); i >= 0 { // written twice: the last value counts
				keys, next = slices.Delete(keys, i, i+1), slices.Delete(next, i, i+1)
			}
			keys = append(keys, key)
		}
		o, ok := valueKeyOrder(dec)
		if !ok {
			return nil, false
		}
		next = append(next, o)
	}
	if _, err := dec.Token(); err != nil { // } or ]
		return nil, false
	}
	if delim == '[' {
		return ListOrder(next), true
	}
	return ObjectOrder(keys, next), true
}

// appendOrdered appends a JSON value as AppendValue does, the members of its objects in
// the order o gives, then those o does not name in sorted order.
func appendOrdered(dst []byte, v any, o *KeyOrder) ([]byte, error) {
	if o == nil {
		return AppendValue(dst, v)
	}
	var err error
	switch x := v.(type) {
	case map[string]any:
		dst = append(dst, '{')
		written := 0
		for i, k := range o.Keys {
			item, ok := x[k]
			if !ok {
				continue
			}
			if written > 0 {
				dst = append(dst, ',')
			}
			written++
			dst = append(appendString(dst, k), ':')
			if dst, err = appendOrdered(dst, item, o.Item(i)); err != nil {
				return nil, err
			}
		}
		if written < len(x) {
			rest := make([]string, 0, len(x)-written)
			for k := range x {
				if !slices.Contains(o.Keys, k) {
					rest = append(rest, k)
				}
			}
			slices.Sort(rest)
			for _, k := range rest {
				if written > 0 {
					dst = append(dst, ',')
				}
				written++
				dst = append(appendString(dst, k), ':')
				if dst, err = AppendValue(dst, x[k]); err != nil {
					return nil, err
				}
			}
		}
		return append(dst, '}'), nil
	case []any:
		dst = append(dst, '[')
		for i, item := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = appendOrdered(dst, item, o.Item(i)); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	}
	return AppendValue(dst, v)
}
