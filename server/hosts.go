package server

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"

	"github.com/labstack/echo/v4"
)

// dockerHost is the name by which containers reach the machine that runs them.
const dockerHost = "host.docker.internal"

// hostPattern is what --allowed-hosts takes: a host name, or one under a domain
// (*.svc.cluster.local), in letters, digits, hyphens and underscores.
var hostPattern = regexp.MustCompile(`^(\*\.)?[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.?$`)

// ValidHostPattern reports whether s may be an allowed host: "*" (any host), a host
// name such as mock.test, or *.example.com for every name under example.com. It takes no
// scheme, port or path.
func ValidHostPattern(s string) bool { return s == "*" || hostPattern.MatchString(s) }

// hostPolicy says which names a request's Host header may carry, against DNS
// rebinding: a web page whose own name comes to resolve to the mock's address reaches
// the mock as the same origin, but its requests name the page's host. An IP address,
// localhost and its subdomains, a single-label name (a compose service such as
// agui-mock) and host.docker.internal cannot be such a name; others must be allowed.
type hostPolicy struct {
	logger  *slog.Logger // where refusals are logged
	anyHost bool
	names   []string // allowed names, lower case, without a trailing dot
	domains []string // ".example.com" for *.example.com
	// allowed is the Host header last allowed: a client sends the same one on every
	// request, and it is parsed once, not per request.
	allowed atomic.Pointer[string]
}

// newHostPolicy returns the policy that also allows the given names and patterns,
// each of which ValidHostPattern accepts.
func newHostPolicy(allowed []string, logger *slog.Logger) *hostPolicy {
	p := &hostPolicy{logger: logger}
	for _, a := range allowed {
		a = strings.TrimSuffix(strings.ToLower(a), ".")
		switch {
		case a == "*":
			p.anyHost = true
		case strings.HasPrefix(a, "*."):
			p.domains = append(p.domains, a[1:])
		default:
			p.names = append(p.names, a)
		}
	}
	return p
}

// allows reports whether a request may name host (a Host header: a name or an IP
// literal, with or without a port).
func (p *hostPolicy) allows(host string) bool {
	if p.anyHost || host == "" { // no Host: HTTP/1.0, which no browser sends
		return true
	}
	name := strings.TrimSuffix(strings.ToLower(strings.Trim(hostName(host), "[]")), ".")
	if net.ParseIP(name) != nil || !strings.Contains(name, ".") || name == dockerHost ||
		name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return true
	}
	for _, n := range p.names {
		if name == n {
			return true
		}
	}
	for _, d := range p.domains {
		if strings.HasSuffix(name, d) {
			return true
		}
	}
	return false
}

// middleware refuses every request whose Host the policy does not allow, the AG-UI
// endpoints' as well as the admin API's: DNS rebinding reaches them all. It runs
// inside journaled, so a refused AG-UI request is journaled with its reason.
func (p *hostPolicy) middleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		host := c.Request().Host
		if last := p.allowed.Load(); last != nil && *last == host {
			return next(c)
		}
		if p.allows(host) {
			p.allowed.Store(&host)
			return next(c)
		}
		return refuse(p.logger, c, apiError(http.StatusForbidden, "forbidden_host", fmt.Sprintf(
			"this server does not answer for the host %q, against DNS rebinding; "+
				"if it is a name of the server's, start it with --allowed-hosts %s (or AGUI_MOCK_ALLOWED_HOSTS)", host, hostName(host))))
	}
}

// hostName is a Host header without its port.
func hostName(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		return h
	}
	return host
}
