package protocol

import "fmt"

// Freeze settles the conversation and returns it as JSON, to keep while no run streams on
// it: bytes the garbage collector need not walk, where its values are objects it would
// trace on every collection. Thaw reads it back into equal values, numbers as
// json.Number. Objects' members come in no particular order: frozen bytes are for
// reading back, never for a client or a file.
func (c *Conversation) Freeze() ([]byte, error) {
	c.Settle()
	dst := append(make([]byte, 0, 256), `{"messages":[`...)
	var err error
	for i, m := range c.Messages {
		if i > 0 {
			dst = append(dst, ',')
		}
		if dst, err = appendKept(dst, m); err != nil {
			return nil, fmt.Errorf("freezing the conversation: %w", err)
		}
	}
	dst = append(dst, `],"state":`...)
	if dst, err = appendKept(dst, c.State); err != nil {
		return nil, fmt.Errorf("freezing the conversation: %w", err)
	}
	return append(dst, '}'), nil
}

// Thaw returns the conversation Freeze wrote. Bytes of any other source are a
// programming error, and it panics on them.
func Thaw(frozen []byte) Conversation {
	v, err := DecodeJSON(frozen)
	if err != nil {
		panic("thawing a conversation that Freeze did not write: " + err.Error())
	}
	doc, _ := v.(map[string]any)
	list, _ := doc["messages"].([]any)
	c := Conversation{State: doc["state"]}
	if len(list) > 0 {
		c.Messages = make([]map[string]any, 0, len(list))
		for _, m := range list {
			if m, ok := m.(map[string]any); ok {
				c.Messages = append(c.Messages, m)
			}
		}
	}
	return c
}

// appendKept appends v as JSON, objects' members in map order: the values a
// conversation holds, read by Freeze in one pass; any other through AppendValue.
func appendKept(dst []byte, v any) ([]byte, error) {
	var err error
	switch x := v.(type) {
	case map[string]any:
		dst = append(dst, '{')
		first := true
		for k, item := range x {
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = append(appendString(dst, k), ':')
			if dst, err = appendKept(dst, item); err != nil {
				return nil, err
			}
		}
		return append(dst, '}'), nil
	case []any:
		dst = append(dst, '[')
		for i, item := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = appendKept(dst, item); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	}
	return AppendValue(dst, v)
}
