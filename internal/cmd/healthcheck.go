package cmd

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/agui-mock/agui-mock/server"
)

// runHealthcheck probes a running server's liveness endpoint; it is the container's
// HEALTHCHECK, since the image has no shell or curl. Exit 0: healthy, 1: not, a bad
// flag or variable included (Docker reserves 2).
//
// It sends the admin token as the server resolves it, from the same flags or
// variables: the container's environment serves both.
func runHealthcheck(ctx context.Context, in invocation) int {
	stdout, stderr := in.stdout, in.stderr
	o := newHealthcheckConfig()
	fs := healthcheckFlags(o, stderr)
	if _, code := parseFlags(fs, in.args, false, in.lookupEnv, stderr); code >= 0 {
		return min(code, 1)
	}
	host, port, err := net.SplitHostPort(o.addr)
	if err := checkFlags(
		flagCheck{"addr", o.addr, err == nil, "host:port, e.g. 127.0.0.1:8000 or :8000"},
		flagCheck{"timeout", o.timeout, o.timeout > 0, "positive"},
	); err != nil {
		fmt.Fprintln(stderr, "agui-mock healthcheck:", err)
		return 1
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1" // a server listening on every interface answers on loopback
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	url := "http://" + net.JoinHostPort(host, port) + server.AdminPrefix + "/healthz"
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if token := server.ResolveAdminToken(string(o.adminToken), string(o.authToken)); token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintf(stderr, "unhealthy: %v\n", err)
		return 1
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		hint := ""
		if resp.StatusCode == http.StatusUnauthorized {
			hint = " (give the server's admin token: -admin-token or AGUI_MOCK_ADMIN_TOKEN, else -auth-token or AGUI_MOCK_AUTH_TOKEN)"
		}
		fmt.Fprintf(stderr, "unhealthy: %s answered %s%s\n", url, resp.Status, hint)
		return 1
	}
	fmt.Fprintln(stdout, "healthy")
	return 0
}

// healthcheckConfig is what healthcheck runs with.
type healthcheckConfig struct {
	addr                  string
	timeout               time.Duration
	adminToken, authToken tokenFlag
}

// newHealthcheckConfig returns the settings healthcheck starts with: it asks where serve
// listens by default.
func newHealthcheckConfig() *healthcheckConfig {
	return &healthcheckConfig{addr: defaultAddr, timeout: 2 * time.Second}
}

// healthcheckFlagSet is the flag set of healthcheck, for the command table.
func healthcheckFlagSet() *flag.FlagSet { return healthcheckFlags(newHealthcheckConfig(), io.Discard) }

// healthcheckFlags defines the healthcheck command's flags into o, each with the value o
// holds as its default.
func healthcheckFlags(o *healthcheckConfig, stderr io.Writer) *flag.FlagSet {
	fs := newFlagSet("healthcheck", stderr)
	fs.StringVar(&o.addr, "addr", o.addr, "the server's listen address (AGUI_MOCK_ADDR, as for serve)")
	fs.DurationVar(&o.timeout, "timeout", o.timeout, "how long to wait for an answer")
	fs.Var(&o.adminToken, "admin-token", "the server's admin token (AGUI_MOCK_ADMIN_TOKEN, as for serve)")
	fs.Var(&o.authToken, "auth-token", "the server's AG-UI token, sent when there is no admin token (AGUI_MOCK_AUTH_TOKEN, as for serve)")
	return fs
}
