package server

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// chatRun is a run the built-in scenarios answer.
const chatRun = `{"threadId":"th-other","runId":"r","messages":[{"id":"m","role":"user","content":"hello"}]}`

// answeredWithin sends a request on a new connection and returns how long its answer's
// headers took, failing the test when they took longer than within or had another status.
// within is a time the test sets against the server's own: the time a stalled body or a
// silent socket is given, which the answer must not wait for.
func answeredWithin(t *testing.T, addr, method, path, body string, status int, within time.Duration) time.Duration {
	t.Helper()
	started := time.Now()
	c := dial(t, addr)
	defer c.conn.Close()
	c.send(t, method, path, body, nil)
	resp, err := c.answer(within)
	took := time.Since(started)
	if err != nil || resp.StatusCode != status {
		t.Fatalf("%s %s: %v %v after %v, want %d within %v", method, path, resp, err, took, status, within)
	}
	return took
}

// stall opens a connection that sends a request's headers, announcing a body it never sends.
func stall(t *testing.T, addr string) *rawClient {
	t.Helper()
	c := dial(t, addr)
	if _, err := fmt.Fprintf(c.conn, "POST /agui/chat HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestStalledBodiesLeaveTheServerAnswering(t *testing.T) {
	t.Parallel()
	const bodyTimeout = 2 * time.Second
	s := newServer(t, "", func(c *Config) { c.BodyTimeout = bodyTimeout }) // --max-starting 128
	addr, _ := serveOn(t, s)
	stalled := make([]*rawClient, 130)
	started := time.Now()
	for i := range stalled {
		stalled[i] = stall(t, addr)
	}
	// Both are answered before the stalled bodies' time is up: nothing waits for them.
	health := answeredWithin(t, addr, "GET", AdminPrefix+"/healthz", "", 200, bodyTimeout-time.Since(started))
	run := answeredWithin(t, addr, "POST", "/agui/chat", chatRun, 200, bodyTimeout-time.Since(started))
	t.Logf("with %d stalled bodies: /_mock/healthz answered in %v, a run started in %v", len(stalled), health, run)

	// Each stalled body is answered 408 when its time is up, and its connection closed.
	for i, c := range stalled {
		resp, err := c.answer(bodyTimeout + 5*time.Second)
		if err != nil || resp.StatusCode != http.StatusRequestTimeout || !resp.Close {
			t.Fatalf("stalled body %d: %v %v, want 408 and the connection closed", i, resp, err)
		}
		if i == 0 {
			body, _ := io.ReadAll(resp.Body)
			if !strings.Contains(string(body), `"body_timeout"`) || !strings.Contains(string(body), "2s") {
				t.Errorf("the 408 says %s", body)
			}
			if took := time.Since(started); took < bodyTimeout {
				t.Errorf("answered 408 after %v, before the body's time of %v was up", took, bodyTimeout)
			}
		}
	}
}

func TestAStalledBodyOfARefusedRequestDelaysNobody(t *testing.T) {
	t.Parallel()
	// Refused before its body is read, a request's answer waits until net/http has
	// drained the body: with one place to start in, the next connection gets in all the
	// same, before the stalled body's time is up.
	const bodyTimeout = 2 * time.Second
	s := newServer(t, "", func(c *Config) { c.MaxStarting = 1; c.AuthToken = "secret"; c.BodyTimeout = bodyTimeout })
	addr, _ := serveOn(t, s)
	started := time.Now()
	stalled := stall(t, addr)
	took := answeredWithin(t, addr, "GET", AdminPrefix+"/healthz", "", 401, bodyTimeout-time.Since(started))
	t.Logf("behind a refused stalled body, the next request was answered in %v", took)
	if resp, err := stalled.answer(bodyTimeout + 5*time.Second); err != nil || resp.StatusCode != 401 || !resp.Close {
		t.Fatalf("the refused stalled request: %v %v, want its 401 and the connection closed", resp, err)
	}
}

func TestReconnectingSilentSocketsLeaveTheServerAnswering(t *testing.T) {
	t.Parallel()
	// Every answer comes well before a silent socket's time to send its headers is up:
	// nothing waits for one.
	const within = headerTimeout / 2
	for _, tt := range []struct {
		maxStarting, sockets int
	}{{128, 200}, {16, 40}} {
		t.Run(fmt.Sprintf("%d sockets, --max-starting %d", tt.sockets, tt.maxStarting), func(t *testing.T) {
			s := newServer(t, "", func(c *Config) { c.MaxStarting = tt.maxStarting })
			addr, _ := serveOn(t, s)
			var mu sync.Mutex
			silent := make([]net.Conn, 0, tt.sockets)
			for range tt.sockets {
				c, err := net.Dial("tcp", addr)
				if err != nil {
					t.Fatal(err)
				}
				silent = append(silent, c)
			}
			defer func() {
				mu.Lock()
				defer mu.Unlock()
				for _, c := range silent {
					c.Close()
				}
			}()
			// A socket is dropped and opened again every 100 ms, as clients that reconnect
			// when the server drops them do.
			stop := make(chan struct{})
			churned := make(chan struct{})
			go func() {
				defer close(churned)
				for {
					select {
					case <-stop:
						return
					case <-time.After(100 * time.Millisecond):
					}
					mu.Lock()
					i := rand.IntN(len(silent))
					silent[i].Close()
					if c, err := net.Dial("tcp", addr); err == nil {
						silent[i] = c
					}
					mu.Unlock()
				}
			}()
			var slowest time.Duration
			for range 5 {
				time.Sleep(200 * time.Millisecond)
				slowest = max(slowest, answeredWithin(t, addr, "GET", AdminPrefix+"/healthz", "", 200, within))
			}
			run := answeredWithin(t, addr, "POST", "/agui/chat", chatRun, 200, within)
			close(stop)
			<-churned
			t.Logf("with %d silent sockets reconnecting: the slowest of 5 health checks answered in %v, a run started in %v", tt.sockets, slowest, run)
		})
	}
}
