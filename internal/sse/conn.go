package sse

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"
)

// Conn writes the rest of an SSE response on a connection taken over from net/http
// (http.ResponseController.Hijack) once the headers are out, so that a stream which
// only waits needs no goroutine of net/http's: every Flush sends what was written since
// the last one as one HTTP/1.1 chunk, and Close ends the body with the last chunk and
// closes the connection, which the response's Connection: close header announced.
// Between flushes a Conn holds no buffer: a waiting stream costs only the connection.
type Conn struct {
	conn         net.Conn
	writeTimeout time.Duration
	deadline     time.Time
	pending      *[]byte // what was written since the last flush, after room for the chunk's size line
}

// chunkHead is the room kept before a chunk's data for its size line: up to 8 hex
// digits and CRLF. A chunk is never larger than 4 GiB, which Write refuses.
const chunkHead = 10

// maxPooled bounds the buffers kept for reuse, so that one huge burst does not stay.
const maxPooled = 64 << 10

var buffers = sync.Pool{New: func() any { b := make([]byte, chunkHead, 4<<10); return &b }}

// NewConn returns a writer of the rest of a chunked response on conn. With a
// writeTimeout, every write has at least half of it to complete.
func NewConn(conn net.Conn, writeTimeout time.Duration) *Conn {
	return &Conn{conn: conn, writeTimeout: writeTimeout}
}

// Write adds b, one or more whole or partial frames, to the next chunk.
func (c *Conn) Write(b []byte) (int, error) {
	if c.pending == nil {
		c.pending = buffers.Get().(*[]byte)
	}
	if len(*c.pending)+len(b) > 1<<32-1 {
		return 0, errors.New("a chunk larger than 4 GiB")
	}
	*c.pending = append(*c.pending, b...)
	return len(b), nil
}

// lastChunk ends a chunked body.
const lastChunk = "0\r\n\r\n"

// Flush sends what was written since the last flush as one chunk.
func (c *Conn) Flush() error { return c.flush(false) }

// flush sends what was written since the last flush as one chunk, followed, if last,
// by the last chunk, in one write.
func (c *Conn) flush(last bool) error {
	if c.pending == nil {
		if last {
			return c.send([]byte(lastChunk))
		}
		return nil
	}
	buf := *c.pending
	defer c.release()
	n := len(buf) - chunkHead
	start := chunkHead
	if n > 0 { // an empty chunk would end the body
		size := strconv.AppendInt(make([]byte, 0, 8), int64(n), 16)
		start = chunkHead - len(size) - 2
		copy(buf[start:], size)
		buf[chunkHead-2], buf[chunkHead-1] = '\r', '\n'
		buf = append(buf, '\r', '\n')
	}
	if last {
		buf = append(buf, lastChunk...)
	}
	if len(buf) == start {
		return nil
	}
	*c.pending = buf // grown by the appends: released as it is
	return c.send(buf[start:])
}

func (c *Conn) release() {
	if cap(*c.pending) <= maxPooled {
		*c.pending = (*c.pending)[:chunkHead]
		buffers.Put(c.pending)
	}
	c.pending = nil
}

// send writes b, renewing the write deadline when less than half of it is left.
func (c *Conn) send(b []byte) error {
	if c.writeTimeout > 0 {
		if now := time.Now(); c.deadline.Sub(now) < c.writeTimeout/2 {
			c.deadline = now.Add(c.writeTimeout)
			if err := c.conn.SetWriteDeadline(c.deadline); err != nil {
				return fmt.Errorf("setting the write deadline: %w", err)
			}
		}
	}
	_, err := c.conn.Write(b)
	return err
}

// Close sends what is written and the last chunk, which ends the body, in one write,
// and closes the connection.
func (c *Conn) Close() error {
	return errors.Join(c.flush(true), c.conn.Close())
}

// Abort closes the connection without ending the body: the client sees the stream
// break off.
func (c *Conn) Abort() error {
	if c.pending != nil {
		c.release()
	}
	return c.conn.Close()
}
