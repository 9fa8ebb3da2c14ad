package server

import (
	"net/http"
	"slices"
	"sync/atomic"
	"time"

	"github.com/agui-mock/agui-mock/internal/sse"
	"github.com/agui-mock/agui-mock/protocol"
)

// eventWriter writes a run's frames in the transport of its encoder. Frames gather in
// its buffer, and reach the response, in writes of up to maxBatch bytes, at flush, which
// the player calls before every wait, or when the handler ends the response (drain): the
// client sees each event the moment it is due, and events due at the same moment go out
// in one write instead of one each.
type eventWriter struct {
	response   sse.Writer // the stream through net/http
	conn       *sse.Conn  // the stream on its connection, once taken over (nil before)
	flushedAt  time.Time  // of the last flush
	enc        protocol.Encoder
	faultWrite func(e *eventWriter, b []byte) error // a fault's: writes in place of a plain write
	pending    bool                                 // written since the last flush
	writes     int                                  // to the response or the connection, which may block: a clock read before one is stale after it
	buf        []byte                               // frames not yet written to the response
	frame      []byte                               // a frame for faultWrite
	// outlive: the run goes on when its client leaves, as the CopilotKit runtime's runner
	// runs it, for a client that reconnects; a write that fails then makes the writer
	// drop what follows (gone) instead of failing the run.
	outlive bool
	gone    bool
	replay  *replayRun // nil unless the ids are cursors: told when the client has gone
}

// maxBatch is about the most the writer gathers before it writes to the response: a
// burst goes out in writes of 32 KiB rather than in net/http's 2 KiB pieces, each of
// them a chunk and a system call of its own (a 204-event burst in one). Once less than
// an eighth of it is left, what was gathered goes before the next frame, so that the
// buffer stops growing there.
const maxBatch = 32 << 10

// keptWhileWaiting is the most buffer a stream keeps through a wait; a larger one, left
// by a burst, goes, so that an open stream holds no more than a frame's worth.
const keptWhileWaiting = 512

// reset makes e a writer of enc's frames to w; faultWrite, if not nil, is a fault's,
// and writes every frame and keep-alive in place of a plain write. A stream that never
// waits starts with room for a short run's frames, or the buffer e had, which the
// response has taken in; one that waits, with none: it gathers a frame or a few at a
// time, and an open stream holds no more than that.
func (e *eventWriter) reset(w http.ResponseWriter, enc protocol.Encoder, writeTimeout time.Duration, waits bool, faultWrite func(e *eventWriter, b []byte) error) {
	buf := e.buf[:0]
	*e = eventWriter{response: sse.NewWriter(w, writeTimeout), enc: enc, faultWrite: faultWrite}
	switch {
	case waits:
	case cap(buf) > 0 && cap(buf) <= 2*maxBatch: // a larger one, left by a large burst, goes
		e.buf = buf
	default:
		e.buf = make([]byte, 0, 1<<10)
	}
}

// begin starts the stream, dated date (a Date header's value; nil: net/http dates it
// as it writes the headers). Its headers wait for the first flush: they go out with the
// first events if those are due at once, or alone before the first wait.
func (e *eventWriter) begin(date []string) {
	if date != nil {
		e.response.Header()["Date"] = date
	}
	e.response.Begin(e.enc.ContentType())
	e.pending = true
}

// httpDates makes the Date header of responses once a second, instead of net/http
// formatting it for every response.
type httpDates struct{ current atomic.Pointer[httpDate] }

// httpDate is the Date header's value during one second.
type httpDate struct {
	second int64
	value  []string // read only: net/http writes it, and copies it with the header
}

// at returns the Date header's value at now.
func (d *httpDates) at(now time.Time) []string {
	second := now.Unix()
	if cur := d.current.Load(); cur != nil && cur.second == second {
		return cur.value
	}
	date := &httpDate{second: second, value: []string{now.UTC().Format(http.TimeFormat)}}
	d.current.Store(date)
	return date.value
}

// takeOver goes on writing the stream on conn, taken over from net/http after a flush,
// and lets go of net/http's response, which holds the connection's buffers.
func (e *eventWriter) takeOver(conn *sse.Conn) {
	e.conn = conn
	e.response = sse.Writer{}
}

// event writes one event stamped with timestamp, in milliseconds.
func (e *eventWriter) event(ev protocol.Event, timestamp int64) error {
	if e.faultWrite != nil {
		var err error
		e.frame, err = e.enc.AppendFrame(e.frame[:0], ev, timestamp)
		if err != nil || len(e.frame) == 0 { // nothing: an event the transport cannot carry
			return err
		}
		return e.faultWrite(e, e.frame)
	}
	switch left := cap(e.buf) - len(e.buf); {
	case len(e.buf) > maxBatch-maxBatch/8:
		if err := e.drain(); err != nil {
			return err
		}
	case left < 256 && len(e.buf) > 0 && cap(e.buf) < maxBatch: // a burst: grown once, not step by step
		e.buf = slices.Grow(e.buf, maxBatch-len(e.buf))
	}
	n := len(e.buf)
	buf, err := e.enc.AppendFrame(e.buf, ev, timestamp)
	if err != nil {
		return err
	}
	e.buf = buf
	if len(buf) == n { // an event the transport cannot carry
		return nil
	}
	e.pending = true
	return nil
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

// writeOnce adds b to what waits for the next write to the response.
func (e *eventWriter) writeOnce(b []byte) error {
	e.pending = true
	e.buf = append(e.buf, b...)
	if len(e.buf) >= maxBatch {
		return e.drain()
	}
	return nil
}

// drain writes what the writer gathered to the response, where it waits for the next
// flush or the end of the response.
func (e *eventWriter) drain() error {
	if len(e.buf) == 0 || e.gone {
		e.buf = e.buf[:0]
		return nil
	}
	e.writes++
	var err error
	if e.conn != nil {
		_, err = e.conn.Write(e.buf)
	} else {
		_, err = e.response.Write(e.buf)
	}
	e.buf = e.buf[:0]
	return e.failed(err)
}

// failed is the error of a write: err, or none when the run outlives its client, which is
// then gone.
func (e *eventWriter) failed(err error) error {
	if err != nil && e.outlive {
		if !e.gone {
			e.replay.leave()
		}
		e.gone = true
		return nil
	}
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
	if err := e.drain(); err != nil {
		return err
	}
	if cap(e.buf) > keptWhileWaiting {
		e.buf = nil
	}
	if e.gone {
		return nil
	}
	if e.conn != nil {
		return e.failed(e.conn.Flush())
	}
	return e.failed(e.response.Flush())
}
