package server

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agui-mock/agui-mock/internal/admission"
)

// readBody reads a request body up to limit bytes, and keeps what it read for the
// request's journal entry. Every body the journal shows is read here.
func (s *Server) readBody(c echo.Context, limit int64) ([]byte, error) {
	req := c.Request()
	if err := s.bodies.admit(c, limit, bodyWait); err != nil {
		if errors.Is(err, errNoRoom) {
			return nil, s.noRoomError(c, bodyWait)
		}
		return nil, apiError(statusClientClosedRequest, "request_stopped", "the request stopped while its body waited for room: "+err.Error())
	}
	if c.Get(bodyRoomKey) != nil && s.cfg.BodyTimeout > 0 { // its time to arrive starts now
		_ = http.NewResponseController(c.Response()).SetReadDeadline(time.Now().Add(s.cfg.BodyTimeout))
	}
	// The announced length is trusted up to the size of a large RunAgentInput: a client
	// that announces more has to send it before more is allocated.
	body, err := readAll(http.MaxBytesReader(c.Response(), req.Body, limit), min(req.ContentLength, maxJournaledBody), min(req.ContentLength, limit))
	// Closed, the body tells net/http that nothing is left to drain before it answers.
	_ = req.Body.Close()
	note(c, func(e *JournalEntry) {
		e.body, e.bodyCut = body, len(body) > maxJournaledBody
		if e.bodyCut { // keep no more than the entry shows
			e.body = bytes.Clone(body[:maxJournaledBody])
		}
	})
	if err != nil {
		var tooLarge *http.MaxBytesError
		var netErr net.Error
		switch {
		case errors.As(err, &tooLarge):
			return nil, apiError(http.StatusRequestEntityTooLarge, "body_too_large", fmt.Sprintf("the body exceeds the limit of %d bytes", limit))
		case errors.As(err, &netErr) && netErr.Timeout():
			c.Response().Header().Set(echo.HeaderConnection, "close") // what is left of the body is not a request
			return nil, apiError(http.StatusRequestTimeout, "body_timeout", fmt.Sprintf("the body did not arrive within %v of the request's headers", s.cfg.BodyTimeout))
		}
		return nil, apiError(http.StatusBadRequest, "unreadable_body", "reading the body: "+err.Error())
	}
	// The body is in: the connection's reads have no deadline (a stream's client may stay
	// silent as long as it likes), and the request goes on as one the server works on.
	_ = http.NewResponseController(c.Response()).SetReadDeadline(time.Time{})
	if err := admission.Resume(req.Context()); err != nil {
		return nil, apiError(statusClientClosedRequest, "request_stopped", "the request stopped while it waited to be answered: "+err.Error())
	}
	return body, nil
}

// readAll reads r to its end like io.ReadAll, into one allocation when size, the length
// the client announced, is right (-1: unknown). The buffer grows by doubling, but never
// past announced+1 bytes while what arrives fits (announced -1: unknown), so that a large
// body that arrives as announced ends in a buffer of its size, not up to twice that.
func readAll(r io.Reader, size, announced int64) ([]byte, error) {
	b := make([]byte, 0, max(size, 0)+1) // the extra byte lets the read that finds the end need no growth
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			grown := 2 * cap(b)
			if int64(len(b)) < announced {
				grown = min(grown, int(announced)+1)
			}
			b = append(make([]byte, 0, grown), b...)
		}
	}
}
