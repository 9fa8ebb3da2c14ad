package server

import (
	"fmt"
	"log/slog"
	"mime"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// Fetch metadata headers browsers send with every request (Sec-Fetch-*).
const (
	headerFetchSite = "Sec-Fetch-Site"
	headerFetchMode = "Sec-Fetch-Mode"
)

// isAdminPath reports whether a path belongs to the admin API or to /metrics, which
// serve the test and its tools rather than the frontend under test.
func isAdminPath(path string) bool {
	return path == AdminPrefix || strings.HasPrefix(path, AdminPrefix+"/") || routeOf(path) == metricsPath
}

// readsOthersData reports whether a request may read or change what other clients did:
// a thread's history, the cancel of a thread's run, and anything done as a test (with
// X-Test-Id), which takes the forced scenarios, faults and breakpoints that test set up
// and reads its threads. Web pages from other origins may not, as for the admin API;
// any page may still run a conversation of its own (see corsPolicy).
func readsOthersData(req *http.Request) bool {
	route := routeOf(req.URL.Path)
	return route == HistoryPath || route == CancelPath || req.Header.Get(TestIDHeader) != ""
}

// ResolveAdminToken returns the token the admin API requires: the admin token, or, when
// there is none, the token of the AG-UI endpoints; "" when neither is set.
func ResolveAdminToken(adminToken, authToken string) string {
	if adminToken != "" {
		return adminToken
	}
	return authToken
}

// adminGuard protects the admin API, every path under AdminPrefix and /metrics, from web
// pages and, with a token, from whoever lacks it; its browser rule also guards the
// requests that read or change other clients' conversations and tests (readsOthersData). Tools that are no browser (curl, test
// runners' HTTP clients) send no Origin and no Sec-Fetch-Site, and pass its browser
// rules. It checks, in order:
//
//   - the browser: a request from a web page is refused (403) unless the page's origin
//     is listed by --cors-origins or is the server's own. A wildcard does not count: it
//     lets any page call the AG-UI endpoints, never drive or read the mock. A request
//     that names no origin but comes from another site (Sec-Fetch-Site) is refused too,
//     except a page the user opens (a navigation) that changes nothing;
//   - the token, when one is set (401), except for the inspector's page and assets,
//     which hold no data: the page asks for the token and sends it on every call;
//   - the body of a request that changes something: JSON or YAML, declared as such
//     (415). A browser sends no other type to another origin without asking it first
//     (a CORS preflight), so a form or a text/plain fetch cannot change the mock even
//     from a browser that sends no Origin.
type adminGuard struct {
	cors   *corsPolicy // the origins --cors-origins lists
	token  []byte      // the admin token; nil when the admin API has none
	logger *slog.Logger
	// listedOnly reports whether a path answers listed origins only, whatever the method:
	// the CopilotKit runtime's routes that read or change a thread
	// (Server.runtimeListedOnly).
	listedOnly func(path string) bool
}

// adminRealm is the realm a 401 of the admin API names.
const adminRealm = "agui-mock admin"

func (g *adminGuard) middleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if !isAdminPath(req.URL.Path) {
			if readsOthersData(req) && changesState(req.Method) || g.listedOnly(req.URL.EscapedPath()) {
				if msg := browserProblem(req, g.cors, othersDataRule); msg != "" {
					return refuse(g.logger, c, apiError(http.StatusForbidden, "forbidden_origin", msg))
				}
			}
			return next(c)
		}
		if msg := browserProblem(req, g.cors, adminRule); msg != "" {
			return refuse(g.logger, c, apiError(http.StatusForbidden, "forbidden_origin", msg))
		}
		if g.token != nil && !isInspectorPath(req.URL.Path) { // the page asks for the token itself
			if he := requireBearer(c, g.token, adminRealm); he != nil {
				he.body.Message += " (the admin API takes the token of --admin-token, or of --auth-token when that is the only one set)"
				return refuse(g.logger, c, he)
			}
		}
		if changesState(req.Method) && req.ContentLength != 0 {
			if he := adminBodyType(req); he != nil {
				return refuse(g.logger, c, he)
			}
		}
		return next(c)
	}
}

// browserRule is what the browser rule guards, as its refusals say it.
type browserRule struct {
	subject string // what does not answer web pages
	power   string // what only listed origins may do
}

var (
	adminRule      = browserRule{"the admin API", "drive or read the mock"}
	othersDataRule = browserRule{"a thread's history, cancel, connect, stop or thread list, or a request as a test (X-Test-Id),", "read or change other clients' conversations and tests"}
)

// browserProblem says why rule refuses a request from a web page, or returns "" when
// it takes it: it is no browser's, or its page's origin is listed or the server's own.
func browserProblem(req *http.Request, cors *corsPolicy, rule browserRule) string {
	if origin := req.Header.Get(headerOrigin); origin != "" {
		if cors.lists(origin) || sameOrigin(origin, req.Host) {
			return ""
		}
		return fmt.Sprintf("%s does not answer web pages from %s: only origins --cors-origins lists by name or pattern "+
			"(a wildcard does not count) may %s; to allow this one, start it with --cors-origins %s", rule.subject, origin, rule.power, origin)
	}
	switch site := req.Header.Get(headerFetchSite); site {
	case "cross-site", "same-site":
		if !changesState(req.Method) && req.Header.Get(headerFetchMode) == "navigate" {
			return "" // a page the user opens, which no other page can read
		}
		return fmt.Sprintf("%s does not answer web pages of other sites (Sec-Fetch-Site: %s) that name no origin", rule.subject, site)
	}
	return ""
}

// sameOrigin reports whether origin is the server's own, as the request's Host names it.
func sameOrigin(origin, host string) bool {
	scheme, rest, ok := strings.Cut(origin, "://")
	return ok && (scheme == "http" || scheme == "https") && strings.EqualFold(rest, host)
}

// changesState reports whether a method may change the server's state: all but those
// HTTP defines as safe.
func changesState(method string) bool {
	return method != http.MethodGet && method != http.MethodHead && method != http.MethodOptions
}

// adminBodyType refuses the body of an admin request unless it is declared JSON or YAML.
func adminBodyType(req *http.Request) *httpError {
	ct := req.Header.Get(echo.HeaderContentType)
	if mt, _, err := mime.ParseMediaType(ct); err == nil && (jsonMediaType(mt) || yamlMediaType(mt)) {
		return nil
	}
	if ct == "" {
		ct = "none"
	}
	return apiError(http.StatusUnsupportedMediaType, "unsupported_media_type",
		"an admin request's body must be JSON or YAML: send Content-Type: application/json or application/yaml (got "+ct+")")
}

// yamlMediaType reports whether a media type is YAML's, registered or of common use.
func yamlMediaType(mt string) bool {
	switch mt {
	case "application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml":
		return true
	}
	return strings.HasSuffix(mt, "+yaml")
}

// refuse logs a request that a guard refuses, which the journal does not show when it
// belongs to the admin API, and returns the refusal as the request's answer.
func refuse(logger *slog.Logger, c echo.Context, he *httpError) error {
	req := c.Request()
	logger.Warn("refused a request", "method", req.Method, "path", req.URL.Path, "status", he.status, "error", he.body.Error,
		"reason", he.body.Message, "host", req.Host, "origin", req.Header.Get(headerOrigin), "remote", req.RemoteAddr)
	return he
}
