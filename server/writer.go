package server

import (
	"net/http"
	"time"

	"github.com/agui-mock/agui-mock/internal/sse"
	"github.com/agui-mock/agui-mock/protocol"
)

// eventWriter writes a run's frames in the transport of its encoder. Frames wait in the response's buffer until flush, which
// the player calls before every wait: the client sees each event the moment it is due,
// and events due at the same moment go out in one write instead of one each.
type eventWriter struct {
	response   sse.Writer // the stream through net/http
	conn       *sse.Conn  // the stream on its connection, once taken over (nil before)
	flushedAt  time.Time  // of the last flush
	enc        protocol.Encoder
	faultWrite func(e *eventWriter, b []byte) error // a fault's: writes in place of a plain write
	pending    bool                                 // written since the last flush
	buf        []byte
}

// newEventWriter returns a writer of enc's frames to w; faultWrite, if not nil, is a
// fault's, and writes every frame and keep-alive in place of a plain write.
func newEventWriter(w http.ResponseWriter, enc protocol.Encoder, writeTimeout time.Duration, faultWrite func(e *eventWriter, b []byte) error) *eventWriter {
	// buf holds one frame at a time: sized for most, it grows once for a large one.
	return &eventWriter{response: sse.NewWriter(w, writeTimeout), enc: enc, faultWrite: faultWrite, buf: make([]byte, 0, 512)}
}

// begin starts the stream. Its headers wait for the first flush: they go out with the
// first events if those are due at once, or alone before the first wait.
func (e *eventWriter) begin() {
	e.response.Begin(e.enc.ContentType())
	e.pending = true
}

// takeOver goes on writing the stream on conn, taken over from net/http after a flush,
// and lets go of net/http's response, which holds the connection's buffers.
func (e *eventWriter) takeOver(conn *sse.Conn) {
	e.conn = conn
	e.response = sse.Writer{}
}

// event writes one event stamped with timestamp, in milliseconds.
func (e *eventWriter) event(ev protocol.Event, timestamp int64) error {
	var err error
	e.buf, err = e.enc.AppendFrame(e.buf[:0], ev, timestamp)
	if err != nil || len(e.buf) == 0 { // nothing: an event the transport cannot carry
		return err
	}
	return e.write(e.buf)
}

// keepAlive writes the transport's keep-alive, if it has one, and flushes it: it is
// written only during waits.
func (e *eventWriter) keepAlive() error {
	ka := e.enc.KeepAlive()
	if ka == nil {
		return nil
	}
	if err := e.write(ka); err != nil {
		return err
	}
	return e.flush()
}

// malformed writes a frame that no client of the transport can decode.
func (e *eventWriter) malformed() error { return e.write(e.enc.MalformedFrame()) }

func (e *eventWriter) write(b []byte) error {
	if e.faultWrite != nil {
		return e.faultWrite(e, b)
	}
	return e.writeOnce(b)
}

func (e *eventWriter) writeOnce(b []byte) error {
	e.pending = true
	if e.conn != nil {
		_, err := e.conn.Write(b)
		return err
	}
	_, err := e.response.Write(b)
	return err
}

// flushPending flushes if anything was written since the last flush.
func (e *eventWriter) flushPending() error {
	if !e.pending {
		return nil
	}
	return e.flush()
}

// flush sends what was written since the last flush.
func (e *eventWriter) flush() error {
	e.pending = false
	e.flushedAt = time.Now()
	if e.conn != nil {
		return e.conn.Flush()
	}
	return e.response.Flush()
}
