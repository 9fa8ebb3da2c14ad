package prototest

import (
	"reflect"
	"testing"
)

func TestWithoutAddedZeros(t *testing.T) {
	got := map[string]any{"type": "X", "name": "", "done": false, "items": []any{}, "n": 0.0,
		"nested": []any{map[string]any{"a": "", "b": "kept"}}, "sent": ""}
	want := map[string]any{"type": "X", "nested": []any{map[string]any{"b": "kept"}}, "sent": ""}
	wantOut := map[string]any{"type": "X", "n": 0.0, "nested": []any{map[string]any{"b": "kept"}}, "sent": ""}
	if out := WithoutAddedZeros(got, want); !reflect.DeepEqual(out, wantOut) {
		t.Errorf("got %v, want %v", out, wantOut)
	}
}
