package main

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
func runHealthcheck(ctx context.Context, args []string, lookupEnv func(string) (string, bool), stdout, stderr io.Writer) int {
	fs, addr, timeout := healthcheckFlags(stderr)
	if _, code := parseFlags(fs, args, false, lookupEnv, stderr); code >= 0 {
		return min(code, 1)
	}
	host, port, err := net.SplitHostPort(*addr)
	if err := checkFlags(
		flagCheck{"addr", *addr, err == nil, "host:port, e.g. 127.0.0.1:8000 or :8000"},
		flagCheck{"timeout", *timeout, *timeout > 0, "positive"},
	); err != nil {
		fmt.Fprintln(stderr, "agui-mock healthcheck:", err)
		return 1
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1" // a server listening on every interface answers on loopback
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	url := "http://" + net.JoinHostPort(host, port) + server.AdminPrefix + "/healthz"
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintf(stderr, "unhealthy: %v\n", err)
		return 1
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintf(stderr, "unhealthy: %s answered %s\n", url, resp.Status)
		return 1
	}
	fmt.Fprintln(stdout, "healthy")
	return 0
}

// healthcheckFlags defines the healthcheck command's flags.
func healthcheckFlags(stderr io.Writer) (fs *flag.FlagSet, addr *string, timeout *time.Duration) {
	fs = flag.NewFlagSet("agui-mock healthcheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr = fs.String("addr", "127.0.0.1:8000", "the server's listen address (AGUI_MOCK_ADDR, as for serve)")
	timeout = fs.Duration("timeout", 2*time.Second, "how long to wait for an answer")
	return fs, addr, timeout
}
