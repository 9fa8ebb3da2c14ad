package upstreamclient

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// counted is a client from New whose dials and round trips of its transport are counted.
type counted struct {
	*http.Client
	dials, trips atomic.Int32
}

func newCounted(t *testing.T) *counted {
	t.Helper()
	c := &counted{Client: New()}
	retry := c.Transport.(*retryReused)
	transport := retry.next.(*http.Transport)
	dial := transport.DialContext
	transport.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c.dials.Add(1)
		return dial(ctx, network, addr)
	}
	retry.next = roundTripFunc(func(req *http.Request) (*http.Response, error) {
		c.trips.Add(1)
		return transport.RoundTrip(req)
	})
	t.Cleanup(transport.CloseIdleConnections)
	return c
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// post sends body to url and returns what the answer's body says.
func (c *counted) post(ctx context.Context, url, body string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return "", err
	}
	return c.send(req)
}

func (c *counted) send(req *http.Request) (string, error) {
	resp, err := c.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	return string(got), err
}

// agent is a TCP server on loopback whose connections are handled, in the order they
// are accepted, by the functions given; it records the requests it answered.
type agent struct {
	url      string
	mu       sync.Mutex
	answered []string
}

// connHandler handles one connection of the agent; it returns when it is done with it.
type connHandler func(a *agent, conn *net.TCPConn, br *bufio.Reader)

func startAgent(t *testing.T, handlers ...connHandler) *agent {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := &agent{url: "http://" + ln.Addr().String() + "/run"}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		conns []net.Conn
	)
	wg.Go(func() {
		for _, handle := range handlers {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
			wg.Go(func() {
				defer conn.Close()
				handle(a, conn.(*net.TCPConn), bufio.NewReader(conn))
			})
		}
	})
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, conn := range conns { // a handler may wait for a request that never comes
			conn.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return a
}

// readRun reads a request and its body.
func readRun(br *bufio.Reader) (string, error) {
	req, err := http.ReadRequest(br)
	if err != nil {
		return "", fmt.Errorf("reading a request: %w", err)
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return "", fmt.Errorf("reading a request body: %w", err)
	}
	return string(body), nil
}

// answer reads a request and answers with its body, keeping the connection open; it
// reports whether the answer was written.
func (a *agent) answer(conn net.Conn, br *bufio.Reader) bool {
	body, err := readRun(br)
	if err != nil {
		return false
	}
	// noted before it is written: the client may read the answer and ask what was
	// answered before this goroutine runs again
	a.mu.Lock()
	a.answered = append(a.answered, body)
	a.mu.Unlock()
	_, err = fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	return err == nil
}

func (a *agent) answers() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.answered...)
}

// answerAll answers every request of a connection.
func answerAll(a *agent, conn *net.TCPConn, br *bufio.Reader) {
	for a.answer(conn, br) {
	}
}

// thenClose answers the connection's first request and, when the next one arrives,
// does close instead of answering it.
func thenClose(shut func(conn *net.TCPConn, br *bufio.Reader)) connHandler {
	return func(a *agent, conn *net.TCPConn, br *bufio.Reader) {
		if a.answer(conn, br) {
			shut(conn, br)
		}
	}
}

// resetUnread closes the connection as soon as a request begins to arrive, without
// reading it: the peer gets a reset, as from a Node server whose keepAliveTimeout
// fired with a request waiting unread.
func resetUnread(conn *net.TCPConn, br *bufio.Reader) {
	if _, err := br.Peek(1); err == nil {
		conn.SetLinger(0)
	}
}

// closeAfterReading reads a request and closes the connection without answering: the
// peer reads an end of file.
func closeAfterReading(conn *net.TCPConn, br *bufio.Reader) { readRun(br) }

func TestRetriesAReusedConnectionClosedAsTheRequestArrives(t *testing.T) {
	for name, shut := range map[string]func(*net.TCPConn, *bufio.Reader){
		"reset with the request unread":    resetUnread,
		"closed once the request was read": closeAfterReading,
	} {
		t.Run(name, func(t *testing.T) {
			a := startAgent(t, thenClose(shut), answerAll)
			c := newCounted(t)
			for _, run := range []string{"run-1", "run-2"} {
				got, err := c.post(context.Background(), a.url, run)
				if err != nil {
					t.Fatalf("%s: %v", run, err)
				}
				if got != run {
					t.Fatalf("%s: answered %q", run, got)
				}
			}
			if got := a.answers(); strings.Join(got, " ") != "run-1 run-2" {
				t.Errorf("the agent answered %q, want each run once", got)
			}
			if d, n := c.dials.Load(), c.trips.Load(); d != 2 || n != 3 {
				t.Errorf("%d connections and %d tries, want 2 and 3: run-2 sent again once, on a new connection", d, n)
			}
		})
	}
}

func TestDoesNotRetryAFreshConnection(t *testing.T) {
	for name, shut := range map[string]func(*net.TCPConn, *bufio.Reader){
		"reset with the request unread":    resetUnread,
		"closed once the request was read": closeAfterReading,
	} {
		t.Run(name, func(t *testing.T) {
			a := startAgent(t, func(_ *agent, conn *net.TCPConn, br *bufio.Reader) { shut(conn, br) }, answerAll)
			c := newCounted(t)
			if _, err := c.post(context.Background(), a.url, "run-1"); err == nil {
				t.Fatal("the run succeeded on a connection closed without an answer")
			}
			if d, n := c.dials.Load(), c.trips.Load(); d != 1 || n != 1 {
				t.Errorf("%d connections and %d tries, want 1 and 1: a new connection that fails is not tried again", d, n)
			}
			if got := a.answers(); len(got) != 0 {
				t.Errorf("the agent answered %q", got)
			}
		})
	}
}

func TestDoesNotRetryOnceTheAnswerBegan(t *testing.T) {
	for name, tc := range map[string]struct {
		answer  string
		atHeads bool // the answer's headers came whole: Do succeeds, the body fails
	}{
		"cut in its status line":   {answer: "HTTP/1.1 200 OK\r\nContent-Le"},
		"cut after its headers":    {answer: "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\ndata: {", atHeads: true},
		"cut after its first byte": {answer: "H"},
	} {
		t.Run(name, func(t *testing.T) {
			a := startAgent(t, thenClose(func(conn *net.TCPConn, br *bufio.Reader) {
				if _, err := readRun(br); err == nil {
					io.WriteString(conn, tc.answer)
				}
			}), answerAll)
			c := newCounted(t)
			if _, err := c.post(context.Background(), a.url, "run-1"); err != nil {
				t.Fatal(err)
			}
			req, err := http.NewRequest(http.MethodPost, a.url, strings.NewReader("run-2"))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := c.Do(req)
			if (err == nil) != tc.atHeads {
				t.Fatalf("Do: %v", err)
			}
			if err == nil {
				_, err = io.ReadAll(resp.Body)
				resp.Body.Close()
				if err == nil {
					t.Fatal("the cut body was read without an error")
				}
			}
			if d, n := c.dials.Load(), c.trips.Load(); d != 1 || n != 2 {
				t.Errorf("%d connections and %d tries, want 1 and 2: run-2 is not sent again once its answer began", d, n)
			}
		})
	}
}

func TestDoesNotRetryWhenTheContextIsDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a := startAgent(t, thenClose(func(conn *net.TCPConn, br *bufio.Reader) {
		readRun(br)
		cancel()
	}), answerAll)
	c := newCounted(t)
	if _, err := c.post(ctx, a.url, "run-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.post(ctx, a.url, "run-2"); err == nil {
		t.Fatal("run-2 succeeded")
	}
	if n := c.trips.Load(); n != 2 {
		t.Errorf("%d tries, want 2: a request whose context is done is not sent again", n)
	}
}

func TestDoesNotRetryABodyThatCannotBeReadAgain(t *testing.T) {
	a := startAgent(t, thenClose(closeAfterReading), answerAll)
	c := newCounted(t)
	if _, err := c.post(context.Background(), a.url, "run-1"); err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, a.url, io.NopCloser(strings.NewReader("run-2")))
	if err != nil {
		t.Fatal(err)
	}
	if req.GetBody != nil {
		t.Fatal("the request's body can be read again")
	}
	if _, err := c.send(req); err == nil {
		t.Fatal("run-2 succeeded")
	}
	if d, n := c.dials.Load(), c.trips.Load(); d != 1 || n != 2 {
		t.Errorf("%d connections and %d tries, want 1 and 2", d, n)
	}
}

func TestFollowsNoRedirect(t *testing.T) {
	srv := httptest.NewServer(http.RedirectHandler("http://elsewhere.test/", http.StatusFound))
	defer srv.Close()
	resp, err := New().Post(srv.URL, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Errorf("status %d, want the redirect itself", resp.StatusCode)
	}
}

// TestIdleConnectionsCloseBeforeNodes checks that an idle connection is given up after
// IdleTimeout, before a Node server's default keepAliveTimeout (5 s) closes it.
func TestIdleConnectionsCloseBeforeNodes(t *testing.T) {
	if IdleTimeout >= 5*time.Second {
		t.Fatalf("IdleTimeout is %v, not below Node's keepAliveTimeout of 5s", IdleTimeout)
	}
	synctest.Test(t, func(t *testing.T) {
		c := New()
		transport := c.Transport.(*retryReused).next.(*http.Transport)
		a := &agent{}
		var dials atomic.Int32
		transport.DialContext = func(context.Context, string, string) (net.Conn, error) {
			dials.Add(1)
			client, server := net.Pipe()
			go func() {
				defer server.Close()
				br := bufio.NewReader(server)
				for a.answer(server, br) {
				}
			}()
			return client, nil
		}
		defer transport.CloseIdleConnections()
		for i, tc := range []struct {
			idle  time.Duration // since the last answer
			dials int32         // connections made so far, this request's included
		}{
			{0, 1},
			{IdleTimeout - time.Millisecond, 1},
			{IdleTimeout + time.Millisecond, 2},
		} {
			time.Sleep(tc.idle)
			synctest.Wait()
			resp, err := c.Post("http://agent.test/run", "application/json", strings.NewReader("{}"))
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if got := dials.Load(); got != tc.dials {
				t.Errorf("request %d, %v after the last: %d connections, want %d", i+1, tc.idle, got, tc.dials)
			}
		}
	})
}
