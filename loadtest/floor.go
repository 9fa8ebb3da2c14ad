package loadtest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/agui-mock/agui-mock/protocol"
)

// Floor is the least an SSE server can do: one prebuilt run, written and flushed frame by
// frame on net/http with Gap between frames, scheduled against the run's start. The run
// is one streamed text message, framed as agui-mock frames it (an id line, a timestamp,
// generated ids), so that both put the same bytes on the wire. The comparison measures
// agui-mock against it. A one-write floor (NewOneWriteFloor) writes the whole run in one
// write instead: the least this stack does for a run.
type Floor struct {
	gap      time.Duration
	frames   [][]byte
	oneWrite []byte // the frames joined, for a one-write floor
}

// NewFloor builds a run of events frames (at least 4: RUN_STARTED, TEXT_MESSAGE_START,
// one TEXT_MESSAGE_CONTENT per word, TEXT_MESSAGE_END, RUN_FINISHED) with gap between
// them.
func NewFloor(events int, gap time.Duration) (*Floor, error) {
	if events < 4 {
		return nil, fmt.Errorf("a run needs at least 4 events, got %d", events)
	}
	const threadID, runID, messageID = "load-0", "run-0", "msg-5ac5d85fd763"
	run := []protocol.Event{
		protocol.NewEvent(protocol.RunStarted, "threadId", threadID, "runId", runID),
		protocol.NewEvent(protocol.TextMessageStart, "messageId", messageID, "role", "assistant"),
	}
	for i := range events - 4 {
		run = append(run, protocol.NewEvent(protocol.TextMessageContent, "messageId", messageID, "delta", fmt.Sprintf("w%d ", i)))
	}
	run = append(run,
		protocol.NewEvent(protocol.TextMessageEnd, "messageId", messageID),
		protocol.NewEvent(protocol.RunFinished, "threadId", threadID, "runId", runID))
	f := &Floor{gap: gap, frames: make([][]byte, len(run))}
	stamp := time.Now().UnixMilli()
	for i, ev := range run {
		frame, err := protocol.AppendFrame(nil, ev, stamp, true)
		if err != nil {
			return nil, fmt.Errorf("framing event %d: %w", i, err)
		}
		f.frames[i] = frame
	}
	return f, nil
}

// NewOneWriteFloor builds a run of events frames, as NewFloor does, that its handler
// writes in one write, without flushing: net/http sends it with the headers as the
// handler returns.
func NewOneWriteFloor(events int) (*Floor, error) {
	f, err := NewFloor(events, 0)
	if err != nil {
		return nil, err
	}
	f.oneWrite = bytes.Join(f.frames, nil)
	return f, nil
}

// ServeHTTP streams the prebuilt run, echoing nothing from the request.
func (f *Floor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	if f.oneWrite != nil {
		_, _ = w.Write(f.oneWrite)
		return
	}
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	start := time.Now()
	for i, frame := range f.frames {
		if wait := time.Until(start.Add(time.Duration(i) * f.gap)); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-r.Context().Done():
				t.Stop()
				return
			case <-t.C:
			}
		}
		if _, err := w.Write(frame); err != nil {
			return
		}
		_ = rc.Flush()
	}
}
