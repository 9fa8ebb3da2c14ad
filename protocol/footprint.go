package protocol

import "encoding/json"

// Footprint estimates the bytes a JSON value holds in memory as the decoders here build
// it: each string's bytes and header, the slots of maps and slices, and the words that
// box a number. The
// server bounds what it keeps of what clients send by it (threads, the journal's run
// records). It errs on the high side for small values, whose overhead dominates, and is
// close for the large strings a client can make it keep.
func Footprint(v any) int64 {
	const word = 8
	switch x := v.(type) {
	case string:
		return 2*word + int64(len(x))
	case json.Number:
		return 2*word + int64(len(x))
	case float64:
		return word
	case map[string]any:
		// the map's header, and a group of eight slots (a key's and a value's
		// interface each, and their control bytes) for every eight members
		n := int64(6*word) + int64((len(x)+7)/8)*(8*4*word+word)
		for k, item := range x {
			n += int64(len(k)) + Footprint(item)
		}
		return n
	case []any:
		n := int64(3 * word)
		for _, item := range x {
			n += 2*word + Footprint(item)
		}
		return n
	case []map[string]any:
		n := int64(3 * word)
		for _, item := range x {
			n += word + Footprint(item)
		}
		return n
	}
	return 0 // nil and bool live in the interface that holds them
}

// Footprint estimates the bytes an event holds in memory (see Footprint).
func (e Event) Footprint() int64 {
	const word = 8
	n := 2*word + int64(len(e.Type)) + 3*word
	for _, f := range e.Fields {
		n += 2*word + int64(len(f.Name)) + 2*word + Footprint(f.Value)
	}
	return n
}

// EventsFootprint estimates the bytes events hold in memory (see Footprint).
func EventsFootprint(events []Event) int64 {
	n := int64(0)
	for _, ev := range events {
		n += ev.Footprint()
	}
	return n
}
