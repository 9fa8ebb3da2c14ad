package protocol

import "strings"

// CompactEvents shortens a thread's events the way @ag-ui/client's compactEvents does
// before a runtime replays them to a client that reconnects: a text message's deltas
// become one TEXT_MESSAGE_CONTENT between its start and its end, a tool call's
// arguments one TOOL_CALL_ARGS, the events that came while a message or call was open
// follow its end, and the state events between two run boundaries become one
// STATE_SNAPSHOT of the state they make, placed before the boundary. Everything else
// keeps its place.
func CompactEvents(events []Event) []Event {
	c := compactor{}
	for _, ev := range events {
		c.add(ev)
	}
	for len(c.texts) > 0 {
		c.flush(&c.texts, 0)
	}
	for len(c.calls) > 0 {
		c.flush(&c.calls, 0)
	}
	c.flushState()
	return c.out
}

// compacted is one text message or tool call being compacted.
type compacted struct {
	id     string
	start  *Event
	deltas strings.Builder
	pieces int
	end    *Event
	others []Event // what came while it was open
}

type compactor struct {
	out          []Event
	texts, calls []*compacted // in the order they were first seen
	state        []Event      // state events since the last run boundary
}

func (c *compactor) add(ev Event) {
	switch ev.Type {
	case TextMessageStart, TextMessageContent, TextMessageEnd:
		c.part(&c.texts, ev, "messageId", TextMessageStart, TextMessageEnd, TextMessageContent)
	case ToolCallStart, ToolCallArgs, ToolCallEnd:
		c.part(&c.calls, ev, "toolCallId", ToolCallStart, ToolCallEnd, ToolCallArgs)
	case RunStarted, RunFinished, RunError:
		c.flushState()
		c.out = append(c.out, ev)
	case StateSnapshot, StateDelta:
		c.state = append(c.state, ev)
	default:
		for _, list := range [][]*compacted{c.texts, c.calls} {
			for _, item := range list {
				if item.start != nil && item.end == nil {
					item.others = append(item.others, ev)
					return
				}
			}
		}
		c.out = append(c.out, ev)
	}
}

// part adds an event of a text message or tool call to its item, and writes the item
// out at its end.
func (c *compactor) part(list *[]*compacted, ev Event, idField, start, end, content string) {
	id := ev.Str(idField)
	i := 0
	for i < len(*list) && (*list)[i].id != id {
		i++
	}
	if i == len(*list) {
		*list = append(*list, &compacted{id: id})
	}
	item := (*list)[i]
	switch ev.Type {
	case start:
		if item.start == nil {
			item.start = &ev
		}
	case content:
		delta, _ := ev.Get("delta")
		s, _ := delta.(string)
		item.deltas.WriteString(s)
		item.pieces++
	case end:
		item.end = &ev
		c.flush(list, i)
	}
}

// flush writes item i of a list out and drops it: its start, its deltas as one, its
// end, and what came while it was open.
func (c *compactor) flush(list *[]*compacted, i int) {
	item := (*list)[i]
	*list = append((*list)[:i], (*list)[i+1:]...)
	if item.start != nil {
		c.out = append(c.out, *item.start)
	}
	if item.pieces > 0 {
		typ, idField := TextMessageContent, "messageId"
		if item.start != nil && item.start.Type == ToolCallStart || item.end != nil && item.end.Type == ToolCallEnd {
			typ, idField = ToolCallArgs, "toolCallId"
		}
		c.out = append(c.out, NewEvent(typ, idField, item.id, "delta", item.deltas.String()))
	}
	if item.end != nil {
		c.out = append(c.out, *item.end)
	}
	c.out = append(c.out, item.others...)
}

// flushState writes the state events gathered as one snapshot of the state they make.
// A patch that does not apply leaves the state as it was.
func (c *compactor) flushState() {
	if len(c.state) == 0 {
		return
	}
	var state any = map[string]any{}
	for _, ev := range c.state {
		if ev.Type == StateSnapshot {
			state, _ = ev.Get("snapshot") // never changed: ApplyPatch makes a new document
			continue
		}
		delta, _ := ev.Get("delta")
		if next, err := ApplyPatch(state, delta); err == nil {
			state = next
		}
	}
	c.state = c.state[:0]
	c.out = append(c.out, NewEvent(StateSnapshot, "snapshot", state))
}
