package server

import (
	"crypto/subtle"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/agui-mock/agui-mock/internal/admission"
)

// AdminPrefix is the reserved path prefix of the server's own endpoints.
const AdminPrefix = "/_mock"

// Paths of the conversation endpoints of the API the server stands in for.
const (
	HistoryPath = "/agui/history"
	CancelPath  = "/agui/cancel"
)

func (s *Server) routes() *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.errorHandler
	chain := []echo.MiddlewareFunc{middleware.RequestIDWithConfig(middleware.RequestIDConfig{Generator: newRequestID}),
		// Before anything may answer: net/http drains what is left of a body before it
		// writes an answer, and would wait for a stalled one without a deadline.
		s.bodyDeadline}
	cors := newCORSPolicy(s.cfg.CORSOrigins, s.runtimeListedOnly)
	if len(s.cfg.CORSOrigins) > 0 {
		// Answers preflights, unjournaled, before the Host check: a preflight changes
		// nothing, and the request it announces meets the check.
		chain = append(chain, cors.middleware)
	}
	guard := &adminGuard{cors: cors, logger: s.cfg.Logger, listedOnly: s.runtimeListedOnly}
	if token := ResolveAdminToken(s.cfg.AdminToken, s.cfg.AuthToken); token != "" {
		guard.token = []byte(token)
	}
	// Every other request is answered and journaled by journaled, whatever route, error
	// or panic it meets, the router's own 404 and 405 included.
	chain = append(chain, s.journaled, newHostPolicy(s.cfg.AllowedHosts, s.cfg.Logger).middleware, guard.middleware)
	e.Use(composedOnce(chain))
	s.adminRoutes(e)
	s.runtimeRoutes(e)
	// Not an echo Group: Group.Use registers catch-all routes of its own.
	e.POST(HistoryPath, s.history, s.authenticate)
	e.POST(CancelPath, s.cancel, s.authenticate)
	e.Any(catchAll, s.dispatch, s.authenticate)
	return e
}

// composedOnce is the middleware of chain, first to last, composed once around the
// handler the router chose for the request (c.Handler(), which is what echo passes its
// middleware). Echo composes what Use registers on every request, a closure for each
// middleware of each request; composed once, they cost a request nothing.
func composedOnce(chain []echo.MiddlewareFunc) echo.MiddlewareFunc {
	h := func(c echo.Context) error { return c.Handler()(c) }
	for i := len(chain) - 1; i >= 0; i-- {
		h = chain[i](h)
	}
	return func(echo.HandlerFunc) echo.HandlerFunc { return h }
}

// bodyDeadline gives a request's body Config.BodyTimeout to arrive, and gives its
// connection's admission place back while it does (readBody takes it again): a client
// that stalls its body makes no other client wait, health checks included.
func (s *Server) bodyDeadline(next echo.HandlerFunc) echo.HandlerFunc {
	if s.cfg.BodyTimeout <= 0 {
		return next
	}
	return func(c echo.Context) error {
		if req := c.Request(); req.ContentLength != 0 && req.Body != http.NoBody {
			s.startBodyClock(c.Response(), req)
		}
		return next(c)
	}
}

// startBodyClock is bodyDeadline's work for a request with a body. It is a function of
// its own, where the response controller is inlined and stays on the stack: in the
// middleware's closure it is not, and costs an allocation on every run.
func (s *Server) startBodyClock(w http.ResponseWriter, req *http.Request) {
	// Unsupported only by writers that are no connection's, such as tests' recorders.
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(s.cfg.BodyTimeout))
	admission.Begun(req.Context())
}

// catchAll is the route of every request no other route takes: run routes, which
// follow the loaded scenarios, and requests the server answers with 404 or 405.
const catchAll = "/*"

// newRequestID returns 32 random hex digits. Echo's default draws on crypto/rand, more
// than an id that only tells requests apart in logs needs, at a cost on every request.
func newRequestID() string {
	var random [16]byte
	binary.LittleEndian.PutUint64(random[:8], rand.Uint64())
	binary.LittleEndian.PutUint64(random[8:], rand.Uint64())
	var digits [32]byte
	return string(hex.AppendEncode(digits[:0], random[:]))
}

// authenticate requires the configured Bearer token, as the production API does. The
// scheme is matched case-insensitively (RFC 7235), the token exactly. A path of the
// admin API that no route takes is left to the admin guard and its token.
func (s *Server) authenticate(next echo.HandlerFunc) echo.HandlerFunc {
	if s.cfg.AuthToken == "" {
		return next
	}
	want := []byte(s.cfg.AuthToken)
	return func(c echo.Context) error {
		if c.Request().Method == http.MethodOptions || isAdminPath(c.Request().URL.Path) {
			return next(c)
		}
		if he := requireBearer(c, want, "agui-mock"); he != nil {
			return he
		}
		return next(c)
	}
}

// requireBearer returns the 401 answer, with its WWW-Authenticate challenge for realm,
// to a request that does not carry the Bearer token want, or nil.
func requireBearer(c echo.Context, want []byte, realm string) *httpError {
	msg := credentialProblem(c.Request().Header.Get("Authorization"), want)
	if msg == "" {
		return nil
	}
	c.Response().Header().Set("WWW-Authenticate", `Bearer realm="`+realm+`"`)
	return apiError(http.StatusUnauthorized, "unauthorized", msg)
}

// credentialProblem says what is wrong with an Authorization header that has to carry
// the Bearer token want, or returns "" when it carries it.
func credentialProblem(header string, want []byte) string {
	if header == "" {
		return "missing Authorization header: send Authorization: Bearer <token>"
	}
	scheme, token, found := strings.Cut(header, " ")
	if !found && !strings.EqualFold(scheme, "Bearer") { // not a scheme: a credential, not to be echoed
		return "the Authorization header names no scheme; send Authorization: Bearer <token>"
	}
	if !strings.EqualFold(scheme, "Bearer") {
		if !knownScheme(scheme) { // perhaps a credential, not to be echoed (nor journaled)
			return "the Authorization header does not start with a known scheme; send Authorization: Bearer <token>"
		}
		return fmt.Sprintf("the Authorization header uses the %q scheme; send Authorization: Bearer <token>", scheme)
	}
	if subtle.ConstantTimeCompare([]byte(strings.TrimLeft(token, " ")), want) != 1 {
		return "the bearer token is not valid"
	}
	return ""
}

// knownScheme reports whether s is a registered HTTP authentication scheme (IANA's
// registry, and NTLM), which an answer may name.
func knownScheme(s string) bool {
	switch strings.ToLower(s) {
	case "basic", "bearer", "concealed", "digest", "dpop", "gnap", "hoba", "mutual", "negotiate", "ntlm", "oauth",
		"privatetoken", "scram-sha-1", "scram-sha-256", "vapid":
		return true
	}
	return false
}

// dispatch sends POSTs on run routes to the run handler; the set of run routes follows
// the loaded scenarios, so it is looked up per request.
func (s *Server) dispatch(c echo.Context) error {
	route := routeOf(c.Request().URL.Path)
	runRoute := s.set.Load().IsRunRoute(route) || (s.upstream.anyPostRuns() && c.Request().Method == http.MethodPost)
	if !runRoute || c.Request().Method != http.MethodPost {
		return unrouted(c, runRoute)
	}
	return s.run(c, runTarget{route: route})
}

// unrouted answers a request that no route takes: 405 with the methods its path takes
// (those of the router's routes for it, and POST on a run route), or 404 if it takes none.
func unrouted(c echo.Context, runRoute bool) *httpError {
	req := c.Request()
	allow := routedMethods(c.Echo(), req.Method, echo.GetPath(req))
	if runRoute && !slices.Contains(allow, http.MethodPost) {
		allow = append(allow, http.MethodPost)
		slices.Sort(allow)
	}
	if len(allow) == 0 {
		return apiError(http.StatusNotFound, "not_found", "no endpoint at "+req.URL.Path)
	}
	c.Response().Header().Set("Allow", strings.Join(allow, ", "))
	msg := fmt.Sprintf("%s takes %s, not %s", req.URL.Path, strings.Join(allow, " or "), req.Method)
	if runRoute {
		msg += " (a run route: POST a RunAgentInput JSON body)"
	}
	return &httpError{status: http.StatusMethodNotAllowed, body: errorBody{Error: "method_not_allowed", Message: msg,
		Details: map[string]any{"allow": allow}}}
}

// routedMethods lists, sorted, the methods other than method for which the router has a
// route of its own (not the catch-all) at path.
func routedMethods(e *echo.Echo, method, path string) []string {
	var allow []string
	for _, r := range e.Routes() {
		if r.Path == catchAll || r.Method == method || slices.Contains(allow, r.Method) {
			continue
		}
		ctx := e.NewContext(nil, nil)
		e.Router().Find(r.Method, path, ctx)
		if ctx.Path() != catchAll && ctx.Path() != "" {
			allow = append(allow, r.Method)
		}
	}
	slices.Sort(allow)
	return allow
}

// routeOf normalizes a request path: a trailing slash does not make another route.
func routeOf(p string) string {
	if p != "/" {
		p = strings.TrimSuffix(p, "/")
	}
	if p == "" {
		return "/"
	}
	return p
}

// errorBody is the JSON every error answer carries.
type errorBody struct {
	Error   string `json:"error"`
	Message string `json:"message"`
	Field   string `json:"field,omitempty"`
	Details any    `json:"details,omitempty"`
}

// httpError is an error answered with a status and an errorBody.
type httpError struct {
	status int
	body   errorBody
	// raw, when set, is the body written instead of body: another server's, as it writes
	// it (the CopilotKit runtime's); body still names the error for the journal.
	raw map[string]any
}

func (e *httpError) Error() string { return e.body.Message }

func apiError(status int, code, message string) *httpError {
	return &httpError{status: status, body: errorBody{Error: code, Message: message}}
}

// errorHandler answers an error that reaches echo: journaled answers those of the
// handlers itself.
func (s *Server) errorHandler(err error, c echo.Context) {
	if !c.Response().Committed {
		s.writeError(c, s.errorAnswer(err, c))
	}
}

// answer runs a request's handler and answers the error it returns, or the panic it
// raises, unless its answer has begun. The error answer is noted in the journal.
func (s *Server) answer(c echo.Context, next echo.HandlerFunc) {
	defer s.bodies.release(c)
	err := s.recovered(c, next)
	if err == nil || c.Response().Committed {
		return // a stream that broke off has already told its client what it could
	}
	he := s.errorAnswer(err, c)
	noteError(c, he)
	s.writeError(c, he)
}

// recovered calls next, turning a panic into an error logged with its stack, so that
// the request is answered and journaled with status 500. http.ErrAbortHandler, with
// which a handler drops its connection on purpose, goes on to net/http.
func (s *Server) recovered(c echo.Context, next echo.HandlerFunc) (err error) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if r == http.ErrAbortHandler {
			panic(r)
		}
		err = &panicError{value: r}
		s.cfg.Logger.Error("request panicked", "path", c.Request().URL.Path, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
	}()
	return next(c)
}

// panicError is a panic of a request's handler, recovered.
type panicError struct{ value any }

func (e *panicError) Error() string { return fmt.Sprintf("panic: %v", e.value) }

// errorAnswer is the answer to an error: its own, if it is an httpError, else the
// nearest one.
func (s *Server) errorAnswer(err error, c echo.Context) *httpError {
	var he *httpError
	var ee *echo.HTTPError
	var pe *panicError
	switch {
	case errors.As(err, &he):
		return he
	case errors.As(err, &ee) && ee.Code == http.StatusMethodNotAllowed:
		// a method not even the catch-all takes: answered as the catch-all would
		c.Response().Header().Del("Allow")
		return unrouted(c, s.set.Load().IsRunRoute(routeOf(c.Request().URL.Path)))
	case errors.As(err, &ee):
		return apiError(ee.Code, strings.ReplaceAll(strings.ToLower(http.StatusText(ee.Code)), " ", "_"), http.StatusText(ee.Code))
	case errors.As(err, &pe): // logged when it was recovered
		return apiError(http.StatusInternalServerError, "internal_error", pe.Error())
	}
	s.cfg.Logger.Error("request failed", "path", c.Request().URL.Path, "err", err)
	return apiError(http.StatusInternalServerError, "internal_error", err.Error())
}

// writeError writes an error answer.
func (s *Server) writeError(c echo.Context, he *httpError) {
	var body any = he.body
	if he.raw != nil {
		body = he.raw
	}
	if err := c.JSON(he.status, body); err != nil {
		s.cfg.Logger.Warn("writing error answer", "err", err)
	}
}
