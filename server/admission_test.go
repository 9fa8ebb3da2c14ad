package server

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agui-mock/agui-mock/internal/admission"
	"github.com/agui-mock/agui-mock/recorder"
)

// serveOn serves s on a loopback listener through Serve, as the binary does, until
// stop is called (or the test ends); it returns the listener's address.
func serveOn(t *testing.T, s *Server) (addr string, stop func()) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln, 10*time.Second) }()
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			cancel()
			if err := <-done; err != nil {
				t.Errorf("serve: %v", err)
			}
		}
	}
	t.Cleanup(stop)
	return ln.Addr().String(), stop
}

// rawClient is one client connection that writes requests by hand, so that the test
// decides when it connects and what it sends.
type rawClient struct {
	conn net.Conn
	r    *bufio.Reader
}

func dial(t *testing.T, addr string) *rawClient {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &rawClient{conn: conn, r: bufio.NewReader(conn)}
}

// send writes a request with a JSON body (none when body is empty).
func (c *rawClient) send(t *testing.T, method, path, body string, header map[string]string) {
	t.Helper()
	var req strings.Builder
	fmt.Fprintf(&req, "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n", method, path, len(body))
	for k, v := range header {
		fmt.Fprintf(&req, "%s: %s\r\n", k, v)
	}
	req.WriteString("\r\n" + body)
	if _, err := c.conn.Write([]byte(req.String())); err != nil {
		t.Fatal(err)
	}
}

// answer reads the response's status line and headers, waiting up to within.
func (c *rawClient) answer(within time.Duration) (*http.Response, error) {
	_ = c.conn.SetReadDeadline(time.Now().Add(within))
	return http.ReadResponse(c.r, nil)
}

// TestAnswersThatWaitGiveUpTheirStartingSlot: with one connection allowed to start at a
// time, every kind of answer that waits (a stream taken over, a stream paused at a
// breakpoint, the journal stream, a long poll of a breakpoint, a slowStart fault, a
// request proxied to an agent that does not answer) must let the next connection in.
func TestAnswersThatWaitGiveUpTheirStartingSlot(t *testing.T) {
	hold := make(chan struct{})
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // an agent that never answers
		case <-r.Context().Done():
		case <-hold:
		}
	}))
	defer agent.Close()
	defer close(hold)
	u, _ := url.Parse(agent.URL)
	rec, err := recorder.New(recorder.Config{Upstream: u, OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	yaml := "id: slow\nmatch: {message: ^slow$}\nevents:\n" +
		"  - {type: RUN_STARTED, threadId: \"{{ .threadId }}\", runId: \"{{ .runId }}\"}\n" +
		"  - {delay: 1h, type: RUN_FINISHED, threadId: \"{{ .threadId }}\", runId: \"{{ .runId }}\"}\n"
	s := newServer(t, yaml, func(c *Config) { c.MaxStarting = 1; c.Recorder = rec })
	addr, stop := serveOn(t, s)
	defer stop() // before the agent closes: the proxied request ends with the server
	threads := 0
	run := func(message string) string { // on a thread of its own
		threads++
		return fmt.Sprintf(`{"threadId":"th-%d","runId":"r","messages":[{"id":"m","role":"user","content":%q}]}`, threads, message)
	}
	breakpoint := func(testID string) string {
		c := dial(t, addr)
		c.send(t, "POST", AdminPrefix+"/breakpoints", `{"event":0}`, map[string]string{TestIDHeader: testID})
		resp, err := c.answer(10 * time.Second)
		if err != nil || resp.StatusCode != 201 {
			t.Fatalf("a breakpoint: %v %v", resp, err)
		}
		var bp struct{ ID string }
		if err := json.NewDecoder(resp.Body).Decode(&bp); err != nil {
			t.Fatal(err)
		}
		return bp.ID
	}
	paused := breakpoint("paused")
	unreached := breakpoint("nobody")

	waits := []struct {
		name, method, path, body string
		header                   map[string]string
		headersArrive            bool
	}{
		{"a stream taken over at its first wait", "POST", "/agui/chat", run("slow"), nil, true},
		{"a stream paused at a breakpoint", "POST", "/agui/chat", run("slow"), map[string]string{TestIDHeader: "paused"}, true},
		{"the journal stream", "GET", AdminPrefix + "/journal/stream", "", nil, true},
		{"a long poll of a breakpoint", "GET", AdminPrefix + "/breakpoints/" + unreached + "?wait=5m", "", nil, false},
		{"a slowStart fault", "POST", "/agui/chat", run("slow"), map[string]string{FaultHeader: "slowStart; delay=1h"}, false},
		{"a run proxied to an agent that does not answer", "POST", "/agui/chat", run("unknown"), nil, false},
	}
	var clients []*rawClient
	defer func() { // the clients go away first: the server's shutdown then ends the rest
		for _, c := range clients {
			c.conn.Close()
		}
	}()
	for _, w := range waits {
		c := dial(t, addr)
		clients = append(clients, c)
		c.send(t, w.method, w.path, w.body, w.header)
		if w.headersArrive {
			if resp, err := c.answer(10 * time.Second); err != nil || resp.StatusCode != 200 {
				t.Fatalf("%s: %v %v", w.name, resp, err)
			}
		}
		// the next connection gets in, and is answered
		next := dial(t, addr)
		next.send(t, "GET", AdminPrefix+"/breakpoints/"+paused, "", nil)
		if resp, err := next.answer(10 * time.Second); err != nil || resp.StatusCode != 200 {
			t.Fatalf("after %s, the next request was not answered (%v %v): the waiting answer kept its starting slot", w.name, resp, err)
		}
	}
}

// TestAConnectionThatSendsNothingHoldsItsStartingSlotBriefly: the slot is taken at
// accept, so that a crowd's connections wait in the kernel's queue, and given back when
// the request has not arrived within admission.WaitForClient, so that a silent client
// makes nobody wait for long.
func TestAConnectionThatSendsNothingHoldsItsStartingSlotBriefly(t *testing.T) {
	s := newServer(t, "", func(c *Config) { c.MaxStarting = 1 })
	addr, _ := serveOn(t, s)
	silent := dial(t, addr)
	// A request of its own makes sure the silent connection was accepted first.
	c := dial(t, addr)
	c.send(t, "GET", AdminPrefix+"/scenarios", "", nil)
	if _, err := c.answer(admission.WaitForClient / 2); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("answered while the only slot was held by a connection just accepted: %v", err)
	}
	if resp, err := c.answer(10 * time.Second); err != nil || resp.StatusCode != 200 {
		t.Fatalf("not answered once the silent connection had waited for its client: %v %v", resp, err)
	}
	silent.conn.Close()
}

// TestHeadersPastTheCapAre431: a request whose headers pass Config.MaxHeaderBytes is
// answered 431 before any handler reads it; one just within it is answered as usual.
func TestHeadersPastTheCapAre431(t *testing.T) {
	t.Parallel()
	s := newServer(t, "", func(c *Config) { c.AllowedHosts = []string{"*"} })
	addr, _ := serveOn(t, s)
	for _, tt := range []struct {
		size int
		want int
	}{{DefaultMaxHeaderBytes - 1024, http.StatusOK}, {DefaultMaxHeaderBytes + 1024, http.StatusRequestHeaderFieldsTooLarge}} {
		c := dial(t, addr)
		fmt.Fprintf(c.conn, "GET "+AdminPrefix+"/healthz HTTP/1.1\r\nHost: localhost\r\nX-Filler: %s\r\n\r\n", strings.Repeat("f", tt.size))
		resp, err := http.ReadResponse(c.r, nil)
		if err != nil {
			t.Fatalf("%d bytes of headers: %v", tt.size, err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("%d bytes of headers: %d, want %d", tt.size, resp.StatusCode, tt.want)
		}
	}
}
