// Package prototest helps tests compare events read from the AG-UI protobuf transport
// with the same events in JSON.
package prototest

// WithoutAddedZeros drops from got, an event read from protobuf as JSON values, the
// members at their zero value ("", false, an empty list) that want, the same event as
// JSON, lacks: protobuf reads a field it did not receive as its zero value, as
// @ag-ui/proto does, so those members are no difference.
func WithoutAddedZeros(got, want any) any {
	switch g := got.(type) {
	case map[string]any:
		w, _ := want.(map[string]any)
		out := map[string]any{}
		for k, v := range g {
			wv, has := w[k]
			if !has && isZero(v) {
				continue
			}
			out[k] = WithoutAddedZeros(v, wv)
		}
		return out
	case []any:
		w, _ := want.([]any)
		out := make([]any, len(g))
		for i, v := range g {
			var wv any
			if i < len(w) {
				wv = w[i]
			}
			out[i] = WithoutAddedZeros(v, wv)
		}
		return out
	}
	return got
}

func isZero(v any) bool {
	switch x := v.(type) {
	case string:
		return x == ""
	case bool:
		return !x
	case []any:
		return len(x) == 0
	}
	return false
}
