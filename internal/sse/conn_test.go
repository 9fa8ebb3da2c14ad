package sse

import (
	"io"
	"net"
	"net/http/httputil"
	"strings"
	"testing"
	"time"
)

// readAll returns what the client end of a pipe receives until the server end closes.
func readAll(t *testing.T, client net.Conn) <-chan string {
	t.Helper()
	got := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(client)
		got <- string(b)
	}()
	return got
}

func TestAConnWritesEachFlushAsOneChunkAndEndsTheBody(t *testing.T) {
	server, client := net.Pipe()
	got := readAll(t, client)
	c := NewConn(server, time.Second)
	for _, part := range []string{"data: 1\n\n", "data: 2\n\n"} {
		if _, err := c.Write([]byte(part)); err != nil {
			t.Fatal(err)
		}
	}
	if c.pending == nil {
		t.Fatal("written but not buffered")
	}
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	if c.pending != nil {
		t.Error("a flushed Conn keeps its buffer")
	}
	if err := c.Flush(); err != nil { // nothing written: no chunk, which would end the body
		t.Fatal(err)
	}
	if _, err := c.Write([]byte(strings.Repeat("x", 300))); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	raw := <-got
	want := "12\r\ndata: 1\n\ndata: 2\n\n\r\n12c\r\n" + strings.Repeat("x", 300) + "\r\n0\r\n\r\n"
	if raw != want {
		t.Errorf("on the wire:\n%q\nwant\n%q", raw, want)
	}
	body, err := io.ReadAll(httputil.NewChunkedReader(strings.NewReader(raw)))
	if err != nil || string(body) != "data: 1\n\ndata: 2\n\n"+strings.Repeat("x", 300) {
		t.Errorf("the chunked body reads as %q (%v)", body, err)
	}
}

func TestAnAbortedConnBreaksOffWithoutTheLastChunk(t *testing.T) {
	server, client := net.Pipe()
	got := readAll(t, client)
	c := NewConn(server, 0)
	if _, err := c.Write([]byte("data: 1\n\n")); err != nil {
		t.Fatal(err)
	}
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write([]byte("data: never sent\n\n")); err != nil {
		t.Fatal(err)
	}
	if err := c.Abort(); err != nil {
		t.Fatal(err)
	}
	if raw := <-got; raw != "9\r\ndata: 1\n\n\r\n" {
		t.Errorf("on the wire: %q", raw)
	}
}
