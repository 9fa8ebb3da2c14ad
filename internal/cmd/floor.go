package cmd

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/agui-mock/agui-mock/loadtest"
)

// floorConfig is what load-floor runs with.
type floorConfig struct {
	addr     string
	events   int
	gap      time.Duration
	oneWrite bool
}

// newFloorConfig returns the settings load-floor starts with.
func newFloorConfig() *floorConfig { return &floorConfig{addr: "127.0.0.1:8001", events: 20} }

// floorFlagSet is the flag set of load-floor, for the command table.
func floorFlagSet() *flag.FlagSet { return floorFlags(newFloorConfig(), io.Discard) }

// floorFlags defines the load-floor command's flags into c, each with the value c holds
// as its default.
func floorFlags(c *floorConfig, stderr io.Writer) *flag.FlagSet {
	fs := newFlagSet("load-floor", stderr)
	fs.StringVar(&c.addr, "addr", c.addr, "address to listen on")
	fs.IntVar(&c.events, "events", c.events, "events per run, RUN_STARTED and RUN_FINISHED included (at least 4)")
	fs.DurationVar(&c.gap, "gap", c.gap, "the gap between events")
	fs.BoolVar(&c.oneWrite, "one-write", c.oneWrite, "write the whole run in one write as the handler returns, instead of flushing each event")
	return fs
}

// runFloor is the floor command: the minimal SSE server the comparison measures against.
func runFloor(ctx context.Context, in invocation) int {
	stdout, stderr := in.stdout, in.stderr
	c := newFloorConfig()
	fs := floorFlags(c, stderr)
	if _, code := parseFlags(fs, in.args, false, in.lookupEnv, stderr); code >= 0 {
		return code
	}
	_, _, addrErr := net.SplitHostPort(c.addr)
	if err := checkFlags(
		flagCheck{"addr", c.addr, addrErr == nil, "host:port, e.g. 127.0.0.1:8001 or :8001"},
		flagCheck{"gap", c.gap, c.gap >= 0, "0 or more"},
		flagCheck{"gap", c.gap, c.gap == 0 || !c.oneWrite, "0 with -one-write, which writes the run at once"},
	); err != nil {
		fmt.Fprintln(stderr, "agui-mock load-floor:", err)
		return 2
	}
	floor, err := loadtest.NewFloor(c.events, c.gap)
	if c.oneWrite {
		floor, err = loadtest.NewOneWriteFloor(c.events)
	}
	if err != nil {
		fmt.Fprintln(stderr, "agui-mock load-floor: -events:", err)
		return 2
	}
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		fmt.Fprintln(stderr, "agui-mock load-floor:", err)
		return 1
	}
	fmt.Fprintf(stdout, "floor listening on http://%s\n", ln.Addr())
	srv := &http.Server{Handler: floor, ReadHeaderTimeout: 10 * time.Second}
	go func() { <-ctx.Done(); _ = srv.Close() }()
	if err := srv.Serve(ln); err != nil && ctx.Err() == nil {
		fmt.Fprintln(stderr, "agui-mock load-floor:", err)
		return 1
	}
	return 0
}
