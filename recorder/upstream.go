package recorder

// The recorder's side towards the agent: the client, and a request forwarded with the
// client's headers.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/agui-mock/agui-mock/internal/upstreamclient"
)

// withoutRedirects returns a copy of client that follows no redirect: a redirect would
// carry the client's credentials to wherever the upstream points. The caller's client is
// left as it is. Without one, it is upstreamclient's, which follows none either and
// sends again a request that a kept-alive connection lost as the agent closed it.
func withoutRedirects(client *http.Client) *http.Client {
	if client == nil {
		return upstreamclient.New()
	}
	c := *client
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &c
}

// hopHeaders are not forwarded; Accept-Encoding is dropped so the stream arrives as
// plain text to relay event by event.
var hopHeaders = []string{"Connection", "Keep-Alive", "Proxy-Connection", "Te", "Trailer", "Transfer-Encoding", "Upgrade", "Host", "Content-Length", "Accept-Encoding"}

// isControl reports the mock's own control headers (speed, faults, forced scenarios),
// which are for the mock, not the agent.
func isControl(h string) bool { return strings.HasPrefix(strings.ToLower(h), "x-agui-mock-") }

// forward sends the request body to the same path upstream with the client's headers,
// credentials included. An upstream that cannot be reached, or that answers with a
// redirect, which is not followed, is returned as an *ErrorAnswer.
func (r *Recorder) forward(ctx context.Context, req *http.Request, body []byte) (*http.Response, error) {
	target := *r.cfg.Upstream
	target.Path = strings.TrimSuffix(target.Path, "/") + req.URL.Path
	target.RawQuery = req.URL.RawQuery
	// From a bytes.Reader, the request gets a GetBody: the client can send it again.
	out, err := http.NewRequestWithContext(ctx, req.Method, target.String(), bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("building the upstream request: %w", err)
	}
	out.Header = req.Header.Clone()
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	for h := range out.Header {
		if isControl(h) {
			out.Header.Del(h)
		}
	}
	resp, err := r.cfg.Client.Do(out)
	if err != nil {
		return nil, &ErrorAnswer{Status: http.StatusBadGateway, Code: "upstream_unreachable", Message: "the upstream agent did not answer: " + err.Error()}
	}
	if resp.StatusCode >= 300 && resp.StatusCode <= 399 && resp.StatusCode != http.StatusNotModified {
		resp.Body.Close()
		return nil, &ErrorAnswer{Status: http.StatusBadGateway, Code: "upstream_redirect",
			Message: fmt.Sprintf("the upstream agent answered %s to %q; the recorder follows no redirect, so that the client's headers go to -upstream only: set -upstream to the agent's own URL",
				resp.Status, resp.Header.Get("Location"))}
	}
	return resp, nil
}

// ErrorAnswer is an error the recorder answers a client with, before any stream.
type ErrorAnswer struct {
	Status  int
	Code    string
	Message string
}

// Error is the answer's message.
func (e *ErrorAnswer) Error() string { return e.Message }

// Proxy passes a non-run request (history, cancel) to the upstream and its answer back.
func (r *Recorder) Proxy(w http.ResponseWriter, req *http.Request, body []byte) error {
	resp, err := r.forward(req.Context(), req, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		if !isHop(k) {
			w.Header()[k] = v
		}
	}
	w.WriteHeader(resp.StatusCode)
	_, err = io.Copy(w, resp.Body)
	return err
}

func isHop(h string) bool {
	for _, hop := range hopHeaders {
		if strings.EqualFold(h, hop) {
			return true
		}
	}
	return false
}
