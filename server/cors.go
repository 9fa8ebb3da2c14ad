package server

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/labstack/echo/v4"
)

// CORS headers the server reads and writes.
const (
	headerOrigin           = "Origin"
	headerRequestMethod    = "Access-Control-Request-Method"
	headerRequestHeaders   = "Access-Control-Request-Headers"
	headerAllowOrigin      = "Access-Control-Allow-Origin"
	headerAllowCredentials = "Access-Control-Allow-Credentials"
	headerAllowMethods     = "Access-Control-Allow-Methods"
	headerAllowHeaders     = "Access-Control-Allow-Headers"
	headerExposeHeaders    = "Access-Control-Expose-Headers"
	headerMaxAge           = "Access-Control-Max-Age"
)

// What a browser app on an allowed origin may do: the methods the endpoints take, the
// answer headers a page reads (beyond those every page may read, such as Content-Type):
// X-Request-Id of every answer, Retry-After of a 503 or an injected 429,
// WWW-Authenticate of a 401 and Allow of a 405. Browsers keep a preflight's answer for
// corsMaxAge seconds.
const (
	corsMethods = "GET, POST, DELETE, OPTIONS"
	corsExposed = "X-Request-Id, Retry-After, WWW-Authenticate, Allow"
	corsMaxAge  = "600"
)

// corsPolicy is the server's whole CORS rule. An origin listed by name or by a pattern
// (* and ? match any characters) is answered with itself and may send credentials
// (cookies, credentials: 'include'); with "*", any other origin may call the AG-UI
// endpoints without credentials, which the Fetch standard forbids for a wildcard — and
// which would let any page read the mock's answers with the user's cookies. The admin
// API, a thread's history and cancel, and the CopilotKit runtime's routes that read or
// change a thread answer listed origins only (see adminGuard), and
// so does a request as a test (X-Test-Id), though its preflight is answered with "*" so
// that the page can read why it is refused. An origin the policy does not allow
// gets no CORS headers, so its browser refuses the answer.
type corsPolicy struct {
	anyOrigin bool             // "*" is among the origins
	listed    []*regexp.Regexp // the other origins, anchored, case-insensitive
	// listedOnly reports whether a path, besides history and cancel, answers listed
	// origins only: the CopilotKit runtime's routes that read or change a thread.
	listedOnly func(path string) bool
}

// newCORSPolicy returns the policy of the configured origins: "*", origins such as
// http://localhost:3000, and patterns such as http://localhost:*.
func newCORSPolicy(origins []string, listedOnly func(path string) bool) *corsPolicy {
	p := &corsPolicy{listedOnly: listedOnly}
	for _, origin := range origins {
		if origin == "*" {
			p.anyOrigin = true
			continue
		}
		pattern := strings.NewReplacer(`\*`, ".*", `\?`, ".").Replace(regexp.QuoteMeta(origin))
		// Quoted metacharacters and the two wildcards always compile.
		p.listed = append(p.listed, regexp.MustCompile("(?i)^"+pattern+"$"))
	}
	return p
}

// allows says what Access-Control-Allow-Origin an origin gets ("" for none) on a path,
// and whether it may send credentials.
func (p *corsPolicy) allows(origin string, u *url.URL) (allowOrigin string, credentials bool) {
	path := u.Path
	switch {
	case origin == "":
		return "", false // not a cross-origin request from a browser
	case p.lists(origin):
		return origin, true
	case p.anyOrigin && !isAdminPath(path) && routeOf(path) != HistoryPath && routeOf(path) != CancelPath && !p.listedOnly(u.EscapedPath()):
		return "*", false
	}
	return "", false
}

// lists reports whether the policy names an origin, by name or by a pattern.
func (p *corsPolicy) lists(origin string) bool {
	for _, re := range p.listed {
		if re.MatchString(origin) {
			return true
		}
	}
	return false
}

// middleware applies the policy to every request. It answers every OPTIONS request
// itself, as a preflight (no endpoint takes OPTIONS otherwise): 204, with the CORS
// headers when the origin is allowed, allowing the methods the endpoints take and every
// header the page asks for — whatever its scenarios match on (match.headers) and the
// mock's own headers. Preflights belong to the browser, not to the app, so they never
// reach the journal.
func (p *corsPolicy) middleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req, h := c.Request(), c.Response().Header()
		h.Add(echo.HeaderVary, headerOrigin) // whether and how the answer allows depends on it
		allowOrigin, credentials := p.allows(req.Header.Get(headerOrigin), req.URL)
		if allowOrigin != "" {
			h.Set(headerAllowOrigin, allowOrigin)
			if credentials {
				h.Set(headerAllowCredentials, "true")
			}
		}
		if req.Method != http.MethodOptions {
			if allowOrigin != "" {
				h.Set(headerExposeHeaders, corsExposed)
			}
			return next(c)
		}
		h.Add(echo.HeaderVary, headerRequestMethod)
		h.Add(echo.HeaderVary, headerRequestHeaders)
		if allowOrigin != "" {
			h.Set(headerAllowMethods, corsMethods)
			if asked := req.Header.Get(headerRequestHeaders); asked != "" {
				h.Set(headerAllowHeaders, asked)
			}
			h.Set(headerMaxAge, corsMaxAge)
		}
		return c.NoContent(http.StatusNoContent)
	}
}
