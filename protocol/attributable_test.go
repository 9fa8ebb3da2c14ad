package protocol_test

import (
	"slices"
	"testing"

	"github.com/agui-mock/agui-mock/internal/spectest"
	"github.com/agui-mock/agui-mock/protocol"
)

// TestAttributableFollowsTheSchema checks protocol.Attributable against the event
// types the official schema composes Attributable into: every one of them, and no other.
func TestAttributableFollowsTheSchema(t *testing.T) {
	want := spectest.AttributableEvents(t)
	for _, typ := range protocol.KnownEventTypes() {
		if got := protocol.Attributable(typ); got != slices.Contains(want, typ) {
			t.Errorf("Attributable(%s) = %v, the schema says %v", typ, got, !got)
		}
	}
	if protocol.Attributable("VENDOR_EVENT") {
		t.Error("an unknown event type is attributable")
	}
}
