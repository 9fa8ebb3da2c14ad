// Command agui-mock is a mock AG-UI agent: it answers AG-UI run requests with scripted,
// timed event streams from YAML scenario files.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agui-mock/agui-mock/scenarios"
	"github.com/agui-mock/agui-mock/server"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.LookupEnv, os.Stdout, os.Stderr))
}

// options are the serve command's settings.
type options struct {
	addr       string
	dirs       listFlag
	noBuiltin  bool
	seed       uint64
	speed      float64
	strict     bool
	sseIDs     bool
	keepAlive  time.Duration
	maxBody    int64
	logFormat  string
	shutdownIn time.Duration
	authToken  string
	cors       listFlag
	maxThreads int
	threadTTL  time.Duration
}

// listFlag is a repeatable flag; from the environment it takes a comma-separated list.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error {
	for _, part := range strings.Split(v, ",") {
		if part = strings.TrimSpace(part); part != "" {
			*l = append(*l, part)
		}
	}
	return nil
}

// run is the whole program, with its environment passed in.
func run(ctx context.Context, args []string, lookupEnv func(string) (string, bool), stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("agui-mock", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.addr, "addr", "127.0.0.1:8000", "address to listen on")
	fs.Var(&o.dirs, "scenarios", "directory of scenario files (repeatable)")
	fs.BoolVar(&o.noBuiltin, "no-builtin", false, "do not serve the built-in scenarios")
	fs.Uint64Var(&o.seed, "seed", 0, "seed for generated ids, fake data and jitter (0 picks a random one)")
	fs.Float64Var(&o.speed, "speed", 1, "multiplies every delay: 0.5 plays twice as fast, 0 without delays")
	fs.BoolVar(&o.strict, "strict", false, "reject run inputs that do not conform to AG-UI 1.1")
	fs.BoolVar(&o.sseIDs, "sse-ids", true, "write an `id: <TYPE>_<timestamp>` line before each event")
	fs.DurationVar(&o.keepAlive, "keepalive", 15*time.Second, "interval of keep-alive comments during long pauses (0 disables)")
	fs.Int64Var(&o.maxBody, "max-body", 10<<20, "largest request body in bytes")
	fs.StringVar(&o.logFormat, "log-format", "text", "log format: text or json")
	fs.DurationVar(&o.shutdownIn, "shutdown-timeout", 8*time.Second, "how long open streams get to end on SIGTERM")
	fs.StringVar(&o.authToken, "auth-token", "", "require Authorization: Bearer <token> on the AG-UI endpoints")
	fs.Var(&o.cors, "cors-origins", "origins browsers may call from (repeatable; default *, \"none\" disables CORS)")
	fs.IntVar(&o.maxThreads, "max-threads", 10000, "threads kept in memory; the least recently used is forgotten past this")
	fs.DurationVar(&o.threadTTL, "thread-ttl", time.Hour, "a thread unused this long is forgotten")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: agui-mock [flags]\n\nServes AG-UI run endpoints from YAML scenarios. Every flag can also be set\nthrough the environment variable AGUI_MOCK_<NAME> (e.g. AGUI_MOCK_SPEED=0).\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if err := applyEnv(fs, lookupEnv); err != nil {
		fmt.Fprintln(stderr, "agui-mock:", err)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "agui-mock: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if err := serve(ctx, o, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "agui-mock:", err)
		return 1
	}
	return 0
}

// applyEnv sets every flag not given on the command line from AGUI_MOCK_<NAME>.
func applyEnv(fs *flag.FlagSet, lookupEnv func(string) (string, bool)) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		name := "AGUI_MOCK_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if v, ok := lookupEnv(name); ok && !given[f.Name] && err == nil {
			if serr := fs.Set(f.Name, v); serr != nil {
				err = fmt.Errorf("%s=%q: %w", name, v, serr)
			}
		}
	})
	return err
}

func serve(ctx context.Context, o options, stdout, stderr io.Writer) error {
	logger, err := newLogger(o.logFormat, stderr)
	if err != nil {
		return err
	}
	if o.speed < 0 {
		return fmt.Errorf("-speed must be 0 or more, got %v", o.speed)
	}
	if o.seed == 0 {
		o.seed = rand.Uint64()
	}
	var sources []scenarios.Source
	for _, dir := range o.dirs {
		info, err := os.Stat(dir)
		if err != nil {
			return fmt.Errorf("scenario directory: %w", err)
		}
		if !info.IsDir() {
			return fmt.Errorf("scenario directory %s is not a directory", dir)
		}
		sources = append(sources, scenarios.Source{FS: os.DirFS(dir), Root: ".", Label: dir})
	}
	if !o.noBuiltin {
		sources = append(sources, scenarios.Builtin())
	}
	set, err := scenarios.Load(sources...)
	if err != nil {
		return err
	}
	cfg := server.DefaultConfig()
	cfg.Seed, cfg.Speed, cfg.Strict, cfg.EventIDs = o.seed, o.speed, o.strict, o.sseIDs
	cfg.KeepAlive, cfg.MaxBodyBytes, cfg.Logger = o.keepAlive, o.maxBody, logger
	cfg.AuthToken = o.authToken
	switch {
	case len(o.cors) == 1 && o.cors[0] == "none":
		cfg.CORSOrigins = nil
	case len(o.cors) > 0:
		cfg.CORSOrigins = o.cors
	}
	if o.maxThreads < 1 || o.threadTTL <= 0 {
		return fmt.Errorf("-max-threads and -thread-ttl must be positive")
	}
	cfg.Threads.MaxThreads, cfg.Threads.IdleTTL = o.maxThreads, o.threadTTL
	srv := server.New(cfg, set)

	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	base := "http://" + ln.Addr().String()
	fmt.Fprintf(stdout, "agui-mock listening on %s\n", base)
	logger.Info("endpoints", "run", strings.Join(prefixAll(base, set.Routes()), " "),
		"history", "POST "+base+server.HistoryPath, "cancel", "POST "+base+server.CancelPath,
		"scenarios", "GET "+base+server.AdminPrefix+"/scenarios")
	for _, sc := range set.Scenarios() {
		logger.Info("scenario", "id", sc.ID, "source", sc.Source, "priority", sc.Priority)
	}
	logger.Info("ready", "scenarios", len(set.Scenarios()), "seed", strconv.FormatUint(o.seed, 10), "speed", o.speed, "strict", o.strict, "auth", o.authToken != "")
	return srv.Serve(ctx, ln, o.shutdownIn)
}

func prefixAll(base string, routes []string) []string {
	out := make([]string, len(routes))
	for i, r := range routes {
		out[i] = "POST " + base + r
	}
	return out
}

func newLogger(format string, w io.Writer) (*slog.Logger, error) {
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, nil)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, nil)), nil
	}
	return nil, fmt.Errorf("-log-format must be text or json, got %q", format)
}
