package cmd

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/agui-mock/agui-mock/recorder"
	"github.com/agui-mock/agui-mock/scenarios"
	"github.com/agui-mock/agui-mock/server"
	"github.com/agui-mock/agui-mock/watcher"
)

// serveConfig is what serve and record run with: the server's configuration, which
// their flags set field by field from server.DefaultConfig, and the settings of the
// command around the server (where it listens, what it loads and watches, how it logs,
// stops and records). Each setting is declared once, its default in newServeConfig or
// server.DefaultConfig, and the help shows that default.
type serveConfig struct {
	server server.Config

	addr       string
	dirs       listFlag
	noBuiltin  bool
	fixedTime  string   // checked and parsed into server.FixedTime as serving starts
	cors       listFlag // replaces server.CORSOrigins when given; "none" alone empties it
	logFormat  string
	logLevel   slog.Level
	shutdownIn time.Duration
	watch      string
	pollEvery  time.Duration
	upstream   string
	recordDir  string
	recMissing bool
	redact     listFlag
	dedupe     bool
	recMaxSize int64
	maxStreams streamLimit
}

// defaultAddr is where serve listens unless told otherwise, and so where healthcheck
// asks.
const defaultAddr = "127.0.0.1:8000"

// newServeConfig returns the settings serve starts with or, with recordAll, record.
func newServeConfig(recordAll bool) *serveConfig {
	c := &serveConfig{
		server:     server.DefaultConfig(),
		addr:       defaultAddr,
		logFormat:  "text",
		logLevel:   slog.LevelInfo,
		shutdownIn: 8 * time.Second,
		watch:      watcher.ModeAuto,
		pollEvery:  2 * time.Second,
		recordDir:  "recorded",
		dedupe:     true,
		recMaxSize: recorder.DefaultMaxBytes,
	}
	c.server.RecordAll = recordAll
	return c
}

// serveFlagSet is the flag set of serve, for the command table.
func serveFlagSet() *flag.FlagSet { return serveFlags(newServeConfig(false), io.Discard) }

// recordFlagSet is the flag set of record, for the command table.
func recordFlagSet() *flag.FlagSet { return serveFlags(newServeConfig(true), io.Discard) }

// serveFlags defines the flags of serve or, with c.server.RecordAll, record, into c,
// each with the value c holds as its default.
func serveFlags(c *serveConfig, stderr io.Writer) *flag.FlagSet {
	cfg := &c.server
	name := "serve"
	if cfg.RecordAll {
		name = "record"
	}
	fs := newFlagSet(name, stderr)
	fs.StringVar(&c.addr, "addr", c.addr, "address to listen on")
	fs.Var(&c.dirs, "scenarios", "directory of scenario files (repeatable)")
	fs.BoolVar(&c.noBuiltin, "no-builtin", c.noBuiltin, "do not serve the built-in scenarios")
	fs.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "seed for generated ids, fake data and jitter: the same conversation plays the same on every thread (0: none, every thread differs)")
	fs.StringVar(&c.fixedTime, "fixed-time", c.fixedTime, "stamp events with this RFC 3339 time plus their offset in the run's script, instead of the time they are sent (with -seed and fixed request ids: byte-identical streams)")
	fs.Float64Var(&cfg.Speed, "speed", cfg.Speed, "multiplies every delay: 0.5 plays twice as fast, 0 without delays")
	fs.BoolVar(&cfg.Strict, "strict", cfg.Strict, "reject run inputs that do not conform to AG-UI 1.1")
	fs.StringVar((*string)(&cfg.Dialect), "dialect", string(cfg.Dialect), "how interrupts reach the client in scenarios that name no dialect: agui (RUN_FINISHED with an interrupt outcome, answered by resume) or langgraph (an on_interrupt custom event, answered by forwardedProps.command.resume)")
	fs.StringVar(&cfg.RuntimePath, "copilotkit-path", cfg.RuntimePath, "where the CopilotKit runtime's routes are served, so that a CopilotKit app's runtimeUrl can point at the mock (e.g. /api/copilotkit); off serves none")
	fs.BoolVar(&cfg.Usage, "usage", cfg.Usage, "report estimated token usage on RUN_FINISHED and RUN_ERROR of the scenarios of steps that say nothing of usage")
	idFlags(fs, cfg)
	fs.DurationVar(&cfg.KeepAlive, "keepalive", cfg.KeepAlive, "interval of keep-alive comments during long pauses (0 disables)")
	fs.Int64Var(&cfg.MaxBodyBytes, "max-body", cfg.MaxBodyBytes, "largest request body in bytes")
	fs.StringVar(&c.logFormat, "log-format", c.logFormat, "log format: text or json")
	fs.TextVar(&c.logLevel, "log-level", c.logLevel, "least level logged: debug (also one line per scenario loaded), info, warn or error")
	fs.DurationVar(&c.shutdownIn, "shutdown-timeout", c.shutdownIn, "how long open streams get to end on SIGTERM")
	fs.Var((*tokenFlag)(&cfg.AuthToken), "auth-token", "require Authorization: Bearer <token> on the AG-UI endpoints, and on the admin API without -admin-token")
	fs.Var((*tokenFlag)(&cfg.AdminToken), "admin-token", "require Authorization: Bearer <token> on the admin API (/_mock, health checks included) and /metrics")
	fs.Var(&c.cors, "cors-origins", "origins browsers may call from (repeatable; default *, \"none\" disables CORS); the admin API answers only pages of origins listed by name or pattern")
	fs.Var((*listFlag)(&cfg.AllowedHosts), "allowed-hosts", "host names the server answers for besides IP addresses, localhost, *.localhost, single-label names and host.docker.internal (repeatable; *.example.com for the names under it, * for any)")
	fs.IntVar(&cfg.Threads.MaxThreads, "max-threads", cfg.Threads.MaxThreads, "threads kept in memory; the least recently used is forgotten past this")
	fs.DurationVar(&cfg.Threads.IdleTTL, "thread-ttl", cfg.Threads.IdleTTL, "a thread unused this long is forgotten")
	fs.StringVar(&c.watch, "watch", c.watch, "how scenario directories are watched: auto (file-system events), poll (for bind mounts and network file systems that deliver none) or off")
	fs.DurationVar(&c.pollEvery, "poll-interval", c.pollEvery, "rescan period with -watch=poll; with -watch=auto, the safety rescan")
	fs.StringVar(&c.upstream, "upstream", c.upstream, "the real AG-UI agent's base URL, to record from")
	fs.StringVar(&c.recordDir, "record-dir", c.recordDir, "where recordings are written; with -record-missing it is served and watched too")
	fs.BoolVar(&c.recMissing, "record-missing", c.recMissing, "serve: proxy to -upstream and record what none of your scenarios answers (the built-in scenarios are left out)")
	fs.Var(&c.redact, "redact", "a regular expression scrubbed from recordings (repeatable; members named like secrets and common credentials always are)")
	fs.BoolVar(&cfg.Metrics, "metrics", cfg.Metrics, "serve Prometheus metrics at /metrics")
	fs.IntVar(&cfg.JournalSize, "journal-size", cfg.JournalSize, "requests the admin journal keeps")
	fs.IntVar(&cfg.JournalEvents, "journal-events", cfg.JournalEvents, "of how many of the latest runs the journal keeps every event, for the inspector at /_mock/ui (0: none)")
	fs.IntVar(&cfg.MaxMessages, "max-messages", cfg.MaxMessages, "most messages a run input may carry (0: no limit)")
	fs.Var(&c.maxStreams, "max-streams", fmt.Sprintf("at most `n` streams open at once; more get 503 with Retry-After (0: no limit; default: what the descriptor limit, ulimit -n, leaves room for after 256 or a tenth of it for files and other connections, up to %d; the start log says which)", server.DefaultMaxStreams))
	fs.IntVar(&cfg.MaxStarting, "max-starting", cfg.MaxStarting, "most connections being accepted and answered at once, until their answers begin; more wait in the kernel's accept queue (0: no limit)")
	fs.BoolVar(&c.dedupe, "dedupe", c.dedupe, "a repeated first request updates its recording instead of adding a file")
	fs.Int64Var(&c.recMaxSize, "record-max-bytes", c.recMaxSize, "most bytes of event JSON one run's recording keeps; a run past it (or past 100000 events) is relayed but not recorded")
	templateLimitFlags(fs, &cfg.TemplateLimits)
	memoryLimitFlags(fs, cfg)
	fs.Usage = func() {
		if cfg.RecordAll {
			fmt.Fprintf(stderr, "Usage: agui-mock record -upstream URL [flags]\n\nProxies every AG-UI request to the agent at -upstream, relays its events as they\narrive, and writes each session into -record-dir as a scenario file that replays it.\n\nFlags:\n")
		} else {
			// serve is the default command, so its help is the first one read: the
			// commands come before its long list of flags, where they are seen at once.
			fmt.Fprintf(stderr, "Usage: agui-mock [serve] [flags]\n\nServes AG-UI run endpoints from YAML scenarios, reloading scenario directories\nwhen their files change. Every flag can also be set through the environment\nvariable AGUI_MOCK_<NAME> (e.g. AGUI_MOCK_SPEED=0).\n\nCommands (run 'agui-mock COMMAND -h' for a command's flags):\n%s\nFlags of serve:\n", commandList())
		}
		fs.PrintDefaults()
	}
	return fs
}

// checkServeFlags checks the values of the serve and record flags that are not checked
// as they are used.
func checkServeFlags(c *serveConfig) error {
	cfg := &c.server
	_, _, addrErr := net.SplitHostPort(c.addr)
	_, dialectErr := scenarios.ParseDialect(string(cfg.Dialect))
	return checkFlags(
		flagCheck{"addr", c.addr, addrErr == nil, "host:port, e.g. 127.0.0.1:8000 or :8000"},
		flagCheck{"speed", cfg.Speed, scenarios.ValidSpeed(cfg.Speed), "a finite number of 0 or more"},
		flagCheck{"dialect", string(cfg.Dialect), dialectErr == nil, "agui or langgraph"},
		flagCheck{"copilotkit-path", cfg.RuntimePath, validRuntimePath(cfg.RuntimePath), "a path such as /copilotkit or /api/copilotkit, outside /_mock, or off"},
		flagCheck{"keepalive", cfg.KeepAlive, cfg.KeepAlive >= 0, "0 (off) or more"},
		flagCheck{"max-body", cfg.MaxBodyBytes, cfg.MaxBodyBytes > 0, "a positive number of bytes"},
		flagCheck{"shutdown-timeout", c.shutdownIn, c.shutdownIn >= 0, "0 or more"},
		originsCheck(c.cors),
		hostsCheck(cfg.AllowedHosts),
		flagCheck{"max-threads", cfg.Threads.MaxThreads, cfg.Threads.MaxThreads >= 1, "1 or more"},
		flagCheck{"thread-ttl", cfg.Threads.IdleTTL, cfg.Threads.IdleTTL > 0, "positive"},
		flagCheck{"watch", c.watch, slices.Contains([]string{watcher.ModeAuto, watcher.ModePoll, watcher.ModeOff}, c.watch), "auto, poll or off"},
		flagCheck{"poll-interval", c.pollEvery, c.pollEvery > 0, "positive"},
		flagCheck{"journal-size", cfg.JournalSize, cfg.JournalSize >= 1, "1 or more"},
		flagCheck{"journal-events", cfg.JournalEvents, cfg.JournalEvents >= 0, "0 or more"},
		flagCheck{"max-messages", cfg.MaxMessages, cfg.MaxMessages >= 0, "0 (no limit) or more"},
		flagCheck{"max-streams", c.maxStreams.n, c.maxStreams.n >= 0, "0 (no limit) or more"},
		flagCheck{"max-starting", cfg.MaxStarting, cfg.MaxStarting >= 0, "0 (no limit) or more"},
		flagCheck{"record-max-bytes", c.recMaxSize, c.recMaxSize > 0, "a positive number of bytes"},
	)
}

// parseFixedTime reads -fixed-time: an RFC 3339 time from the Unix epoch on (event
// timestamps count milliseconds from it), or the zero time when the flag is not set.
func parseFixedTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err := checkFlags(flagCheck{"fixed-time", s, err == nil && t.Unix() >= 0, "an RFC 3339 time from 1970 on, such as 2026-01-01T09:00:00Z"}); err != nil {
		return time.Time{}, err
	}
	return t, nil
}

// originsCheck checks -cors-origins: "none" alone, or "*" and origins.
func originsCheck(origins []string) flagCheck {
	for _, origin := range origins {
		if origin != "*" && (origin != "none" || len(origins) > 1) && !isOrigin(origin) {
			return flagCheck{"cors-origins", origin, false, `"none" alone, "*", or origins such as http://localhost:3000 (scheme://host[:port], no path; * and ? match any characters)`}
		}
	}
	return flagCheck{ok: true}
}

// corsOrigins are the origins -cors-origins gives, in place of the default's, or none
// for "none" alone; the default's when the flag is not given.
func corsOrigins(given, byDefault []string) []string {
	switch {
	case len(given) == 1 && given[0] == "none":
		return nil
	case len(given) > 0:
		return given
	}
	return byDefault
}

// hostsCheck checks -allowed-hosts: host names or patterns, without scheme, port or path.
func hostsCheck(hosts []string) flagCheck {
	for _, host := range hosts {
		if !server.ValidHostPattern(host) {
			return flagCheck{"allowed-hosts", host, false, "host names such as mock.example.com or patterns such as *.svc.cluster.local (no scheme, port or path), or * for any"}
		}
	}
	return flagCheck{ok: true}
}

// isOrigin reports whether s is an origin as browsers send it, scheme://host[:port],
// possibly with wildcards.
func isOrigin(s string) bool {
	scheme, host, ok := strings.Cut(s, "://")
	return ok && scheme != "" && host != "" && !strings.ContainsAny(scheme, "/:*? ") && !strings.ContainsAny(host, "/#@ \t")
}
