// Package upstreamclient makes the HTTP client that talks to a real upstream agent, for
// the recorder (agui-mock record, serve --record-missing) and agui-mock verify alike: it
// is the one place that says how the agent's connections are kept and when a request is
// sent again.
package upstreamclient

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"
	"time"
)

// IdleTimeout is how long a kept-alive connection to the agent may wait idle for the next
// request. It is below the 5 s keepAliveTimeout of Node's HTTP server (recent versions
// wait a second more), which LangGraph JS, Mastra and most AG-UI agents in JavaScript run
// on, so that the client gives up an idle connection before such an agent closes it: a
// request written just as the agent closes the connection it went out on is never read.
// An agent whose timeout is shorter still races, and the request is then sent again (see
// New).
const IdleTimeout = 4 * time.Second

// New returns a client for an upstream agent. It follows no redirect: a followed redirect
// would take the client's headers, credentials among them, to wherever the agent points.
// It keeps idle connections IdleTimeout at most. A request that went out on a kept-alive
// connection which then failed before any byte of an answer came is sent again, once, on
// a new connection, so that the agent closing an idle connection as a run is written to
// it does not fail the run; Go's transport does not do that for a POST. A request is not
// sent again when its connection was new, when any byte of the answer came, when its
// context is done, or when its body cannot be read again (http.NewRequest makes one from
// a bytes.Reader, which can: Request.GetBody).
func New() *http.Client {
	dialer := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	transport := &http.Transport{ // as http.DefaultTransport, but for IdleConnTimeout
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		IdleConnTimeout:       IdleTimeout,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	return &http.Client{
		Transport: &retryReused{next: transport},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// retryReused sends a request again, once, when the kept-alive connection it went out on
// failed before the first byte of an answer.
type retryReused struct {
	next http.RoundTripper
}

// RoundTrip sends req through the next round tripper, and once more when the first try
// failed on a reused connection before any byte of the answer came.
func (t *retryReused) RoundTrip(req *http.Request) (*http.Response, error) {
	var try attempt
	resp, err := t.next.RoundTrip(try.traced(req))
	if err == nil || !try.mayRetry(req) {
		return resp, err
	}
	again := req.Clone(req.Context())
	if req.Body != nil && req.Body != http.NoBody {
		body, bodyErr := req.GetBody()
		if bodyErr != nil {
			return nil, fmt.Errorf("%w (reading the request body again to send it on a new connection: %w)", err, bodyErr)
		}
		again.Body = body
	}
	return t.next.RoundTrip(again)
}

// attempt is what one try of a request saw of its connection. The transport may call
// the trace's hooks from its own goroutines.
type attempt struct {
	reused    atomic.Bool // the last connection the request got was a kept-alive one
	firstByte atomic.Bool // a byte of the answer came
}

// traced returns req with a trace that fills in a; a trace of req's own context is kept.
func (a *attempt) traced(req *http.Request) *http.Request {
	trace := &httptrace.ClientTrace{
		GotConn:              func(info httptrace.GotConnInfo) { a.reused.Store(info.Reused) },
		GotFirstResponseByte: func() { a.firstByte.Store(true) },
	}
	return req.WithContext(httptrace.WithClientTrace(req.Context(), trace))
}

// mayRetry reports whether a request that failed in this attempt may be sent again: its
// connection was a kept-alive one, no byte of the answer came, its context is not done,
// and its body, if any, can be read again.
func (a *attempt) mayRetry(req *http.Request) bool {
	replayable := req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
	return a.reused.Load() && !a.firstByte.Load() && req.Context().Err() == nil && replayable
}
