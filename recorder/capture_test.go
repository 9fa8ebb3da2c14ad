package recorder

import (
	"testing"

	"github.com/agui-mock/agui-mock/protocol"
)

func TestACapturePastItsBoundsKeepsNothing(t *testing.T) {
	ev := capturedEvent{event: protocol.NewEvent(protocol.TextMessageContent, "messageId", "m", "delta", "x")}
	for _, tt := range []struct {
		name      string
		maxEvents int
		maxBytes  int64
		passedAt  int
	}{
		{"events", 3, 1000, 4},
		{"bytes", 1000, 25, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := capture{maxEvents: tt.maxEvents, maxBytes: tt.maxBytes}
			for n := 1; n <= 10; n++ {
				if passed := c.add(ev, 10); passed != (n == tt.passedAt) {
					t.Fatalf("event %d: passed %v", n, passed)
				}
				if n < tt.passedAt && len(c.events) != n {
					t.Fatalf("event %d: %d kept", n, len(c.events))
				}
				if n >= tt.passedAt && (c.events != nil || c.passed == "") {
					t.Fatalf("event %d: %d kept past the bound (%q)", n, len(c.events), c.passed)
				}
			}
			if c.count != 10 || c.bytes != 100 {
				t.Errorf("counted %d events, %d bytes", c.count, c.bytes)
			}
		})
	}
}
