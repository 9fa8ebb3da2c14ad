package recorder

import (
	"fmt"

	"github.com/agui-mock/agui-mock/protocol"
)

// capture keeps the events of the run being recorded, up to its bounds.
type capture struct {
	events    []capturedEvent
	count     int   // events seen
	bytes     int64 // their JSON, in bytes
	maxEvents int
	maxBytes  int64
	passed    string          // the bound the run passed, if it did, or why it is not recorded: nothing is kept from then on
	breaks    []protocol.Rule // the producer rules the agent broke in the run, as it sent it
}

// add keeps an event whose JSON is size bytes long. It reports true when the event takes
// the run past a bound: the events kept so far are dropped then, and no later one is kept.
func (c *capture) add(ce capturedEvent, size int) bool {
	c.count++
	c.bytes += int64(size)
	if c.passed != "" {
		return false
	}
	switch {
	case c.count > c.maxEvents:
		c.passed = fmt.Sprintf("%d events", c.maxEvents)
	case c.bytes > c.maxBytes:
		c.passed = fmt.Sprintf("%d bytes of events (-record-max-bytes)", c.maxBytes)
	default:
		c.events = append(c.events, ce)
		return false
	}
	c.events = nil
	return true
}
