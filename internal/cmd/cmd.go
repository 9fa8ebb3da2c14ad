// Package cmd is the agui-mock command: its commands in one table, their flags and the
// AGUI_MOCK_* variables that set them. The program's main package, at the module's root,
// only calls Run.
package cmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/agui-mock/agui-mock/internal/logline"
	"github.com/agui-mock/agui-mock/scenarios"
)

// command is one of the program's commands: its name, its synopsis and what it does as
// the overview lists them, its flags (for the variables that set them; nil when it has
// none) and how it runs.
type command struct {
	name     string
	synopsis string
	summary  string
	flags    func() *flag.FlagSet
	run      func(ctx context.Context, args []string, lookupEnv func(string) (string, bool), stdout, stderr io.Writer) int
}

// commands is the table of the program's commands, serve, the default, first.
func commands() []command {
	return []command{
		{"serve", "[serve] [flags]", "serve AG-UI run endpoints from YAML scenarios",
			func() *flag.FlagSet { return serveFlags(&options{}, io.Discard) },
			func(ctx context.Context, args []string, lookupEnv func(string) (string, bool), stdout, stderr io.Writer) int {
				return runServe(ctx, args, lookupEnv, stdout, stderr, false)
			}},
		{"record", "record -upstream URL", "proxy to a real agent and record its sessions as scenarios",
			func() *flag.FlagSet { return serveFlags(&options{recordAll: true}, io.Discard) },
			func(ctx context.Context, args []string, lookupEnv func(string) (string, bool), stdout, stderr io.Writer) int {
				return runServe(ctx, args, lookupEnv, stdout, stderr, true)
			}},
		{"validate", "validate [flags] PATH...", "check scenario files and AG-UI event streams",
			func() *flag.FlagSet { fs, _, _, _ := validateFlags(io.Discard); return fs },
			func(_ context.Context, args []string, lookupEnv func(string) (string, bool), stdout, stderr io.Writer) int {
				return runValidate(args, lookupEnv, stdout, stderr)
			}},
		{"verify", "verify -upstream URL PATH...", "check that scenario files still match the real agent",
			func() *flag.FlagSet { return verifyFlags(&verifyOptions{}, io.Discard) },
			runVerify},
		{"healthcheck", "healthcheck [-addr A]", "exit 0 if the server at A is alive (for containers)",
			func() *flag.FlagSet { return healthcheckFlags(&healthcheckOptions{}, io.Discard) },
			runHealthcheck},
		{"load", "load [flags]", "drive concurrent runs against an AG-UI endpoint and measure",
			func() *flag.FlagSet { return loadFlags(&loadOptions{}, io.Discard) },
			runLoad},
		{"load-floor", "load-floor [flags]", "the minimal SSE server that load is compared against",
			func() *flag.FlagSet { fs, _, _, _, _ := floorFlags(io.Discard); return fs },
			runFloor},
		{"init", "init [--copilotkit] [DIR]", "write a starter folder: scenarios and a Playwright spec (--copilotkit: of a CopilotKit app)", nil,
			func(_ context.Context, args []string, _ func(string) (string, bool), stdout, stderr io.Writer) int {
				return runInit(args, stdout, stderr)
			}},
		{"version", "version", "print the version (also: agui-mock --version)", nil,
			func(_ context.Context, args []string, _ func(string) (string, bool), stdout, stderr io.Writer) int {
				return runVersion(args, stdout, stderr)
			}},
	}
}

// commandList lists the commands, for the overview and for the help of serve, the default.
func commandList() string {
	var b strings.Builder
	for _, c := range commands() {
		fmt.Fprintf(&b, "  %-36s %s\n", "agui-mock "+c.synopsis, c.summary)
	}
	return b.String()
}

// usage is the command's overview.
func usage() string {
	return "Usage:\n" + commandList() + `
Run 'agui-mock COMMAND -h' for a command's flags. Every flag can also be set through
the environment variable AGUI_MOCK_<NAME> (e.g. AGUI_MOCK_SPEED=0).
`
}

// Run is the whole program, with its arguments (without the program's name) and its
// environment (NAME=value, as os.Environ lists it) passed in. It returns the exit code.
func Run(ctx context.Context, args, env []string, stdout, stderr io.Writer) int {
	return run(ctx, args, env, stdout, stderr)
}

// run is Run, which the tests of this package call with the environment they make.
func run(ctx context.Context, args []string, env environ, stdout, stderr io.Writer) int {
	name := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	} else if len(args) > 0 && (args[0] == "--version" || args[0] == "-version") {
		name, args = "version", args[1:]
	}
	if name == "help" {
		fmt.Fprint(stdout, usage())
		return 0
	}
	table := commands()
	i := slices.IndexFunc(table, func(c command) bool { return c.name == name })
	if i < 0 {
		fmt.Fprintf(stderr, "agui-mock: unknown command %q\n\n%s", name, usage())
		return 2
	}
	warnOfUnknownVariables(env, stderr)
	return table[i].run(ctx, args, env.lookup, stdout, stderr)
}

// environ is the program's environment as os.Environ lists it, NAME=value.
type environ []string

// lookup returns the value of the variable name, as os.LookupEnv does.
func (e environ) lookup(name string) (string, bool) {
	for _, kv := range e {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			return v, true
		}
	}
	return "", false
}

// envPrefix starts the name of every variable that sets a flag.
const envPrefix = "AGUI_MOCK_"

// envName is the environment variable that sets a flag.
func envName(flagName string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// warnOfUnknownVariables warns of every AGUI_MOCK_* variable that sets no flag of any
// command, naming the closest one: a misspelt variable is otherwise ignored without a
// word. A variable of another command's flag is no mistake, since one environment
// often serves several commands (a container's serve and its healthcheck).
func warnOfUnknownVariables(env environ, stderr io.Writer) {
	known := FlagVariables()
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, envPrefix) || slices.Contains(known, name) {
			continue
		}
		hint := ""
		if closest, ok := scenarios.Closest(name, known); ok {
			hint = " (did you mean " + closest + "?)"
		}
		fmt.Fprintf(stderr, "agui-mock: warning: %s sets no flag of any command and is ignored%s\n", name, hint)
	}
}

// FlagVariables lists the variables that set the flags of every command, AGUI_MOCK_<NAME>.
func FlagVariables() []string {
	var names []string
	for _, c := range commands() {
		if c.flags == nil {
			continue
		}
		c.flags().VisitAll(func(f *flag.Flag) {
			if name := envName(f.Name); !slices.Contains(names, name) {
				names = append(names, name)
			}
		})
	}
	return names
}

// parseFlags parses a command's flags, which may come before, between or after its
// operands (all after "--" are operands), and then fills the flags not given from the
// environment. A command that takes no operands refuses them. It returns the operands
// and the exit code to stop with, or -1 to go on.
func parseFlags(fs *flag.FlagSet, args []string, takesOperands bool, lookupEnv func(string) (string, bool), stderr io.Writer) ([]string, int) {
	var operands []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, 0
			}
			return nil, 2
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if afterDashes := len(rest) < len(args) && args[len(args)-len(rest)-1] == "--"; afterDashes {
			operands = append(operands, rest...)
			break
		}
		operands, args = append(operands, rest[0]), rest[1:]
	}
	if len(operands) > 0 && !takesOperands {
		fmt.Fprintf(stderr, "%s: unexpected argument %q\n", fs.Name(), operands[0])
		return nil, 2
	}
	if err := applyEnv(fs, lookupEnv); err != nil {
		fmt.Fprintln(stderr, "agui-mock:", err)
		return nil, 2
	}
	return operands, -1
}

// listFlag is a repeatable flag: each use on the command line adds one value, commas
// and all (a pattern such as x{1,3}, a header value); from the environment it takes a
// comma-separated list.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error {
	if v = strings.TrimSpace(v); v == "" {
		return errors.New("empty: give a value")
	}
	*l = append(*l, v)
	return nil
}

// tokenFlag is a secret a flag sets: never empty, so that a variable set to nothing
// (AGUI_MOCK_AUTH_TOKEN=${UNSET}) stops the start rather than leaving the endpoints open.
type tokenFlag string

func (f *tokenFlag) String() string { return "" } // never shown, not even as a default
func (f *tokenFlag) Set(v string) error {
	if strings.TrimSpace(v) == "" {
		return errors.New("empty: give a token, or leave the flag unset")
	}
	*f = tokenFlag(v)
	return nil
}

// envValues splits a variable's value into the values of its flag: a list flag's
// comma-separated items (at least one, empty if need be, so that an empty list is
// refused), or the value itself.
func envValues(f *flag.Flag, v string) []string {
	if _, isList := f.Value.(*listFlag); !isList {
		return []string{v}
	}
	items := slices.DeleteFunc(strings.Split(v, ","), func(item string) bool { return strings.TrimSpace(item) == "" })
	if len(items) == 0 {
		return []string{""}
	}
	return items
}

// flagCheck is a rule for a flag's value: ok says whether the value keeps it, allowed
// what the flag takes.
type flagCheck struct {
	name    string
	value   any
	ok      bool
	allowed string
}

// checkFlags returns an error naming the first flag whose value breaks its rule, with
// the value and what the flag takes, or nil.
func checkFlags(checks ...flagCheck) error {
	for _, c := range checks {
		if c.ok {
			continue
		}
		got := fmt.Sprint(c.value)
		if s, isString := c.value.(string); isString {
			got = strconv.Quote(s)
		}
		return fmt.Errorf("-%s must be %s, got %s", c.name, c.allowed, got)
	}
	return nil
}

// isHTTPURL reports whether s is an absolute http or https URL with a host.
func isHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// applyEnv sets every flag not given on the command line from AGUI_MOCK_<NAME>.
func applyEnv(fs *flag.FlagSet, lookupEnv func(string) (string, bool)) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		name := envName(f.Name)
		if v, ok := lookupEnv(name); ok && !given[f.Name] && err == nil {
			for _, value := range envValues(f, v) {
				if serr := fs.Set(f.Name, value); serr != nil && err == nil {
					err = fmt.Errorf("%s=%q: %w", name, v, serr)
				}
			}
		}
	})
	return err
}

func newLogger(format string, level slog.Leveler, w io.Writer) (*slog.Logger, error) {
	opts := &slog.HandlerOptions{Level: level}
	switch format {
	case "text": // as slog's handlers write, and a run's line in a third of their time
		return slog.New(logline.NewText(w, opts)), nil
	case "json":
		return slog.New(logline.NewJSON(w, opts)), nil
	}
	return nil, checkFlags(flagCheck{"log-format", format, false, "text or json"})
}
