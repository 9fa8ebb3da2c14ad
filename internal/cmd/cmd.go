// Package cmd is the agui-mock command: its commands in one table, their flags and the
// AGUI_MOCK_* variables that set them. The program's main package, at the module's root,
// only calls Run.
package cmd

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/agui-mock/agui-mock/scenarios"
)

// command is one of the program's commands: its name, its synopsis and what it does as
// the overview lists them, its flags (for the variables that set them, and the flags
// table of the documentation; nil when it has none) and how it runs.
type command struct {
	name     string
	synopsis string
	summary  string
	flags    func() *flag.FlagSet
	run      func(context.Context, invocation) int
}

// invocation is what a command runs with, besides the context that stops it: its
// arguments (after its name), the program's environment and where it writes.
type invocation struct {
	args           []string
	lookupEnv      func(string) (string, bool)
	stdout, stderr io.Writer
}

// commands is the table of the program's commands, serve, the default, first.
func commands() []command {
	return []command{
		{"serve", "[serve] [flags]", "serve AG-UI run endpoints from YAML scenarios", serveFlagSet, runServe},
		{"record", "record -upstream URL", "proxy to a real agent and record its sessions as scenarios", recordFlagSet, runRecord},
		{"validate", "validate [flags] PATH...", "check scenario files and AG-UI event streams", validateFlagSet, runValidate},
		{"verify", "verify -upstream URL PATH...", "check that scenario files still match the real agent", verifyFlagSet, runVerify},
		{"healthcheck", "healthcheck [-addr A]", "exit 0 if the server at A is alive (for containers)", healthcheckFlagSet, runHealthcheck},
		{"load", "load [flags]", "drive concurrent runs against an AG-UI endpoint and measure", loadFlagSet, runLoad},
		{"load-floor", "load-floor [flags]", "the minimal SSE server that load is compared against", floorFlagSet, runFloor},
		{"init", "init [--copilotkit] [DIR]", "write a starter folder: scenarios and a Playwright spec (--copilotkit: of a CopilotKit app)", nil, runInit},
		{"version", "version", "print the version (also: agui-mock --version)", nil, runVersion},
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
	return table[i].run(ctx, invocation{args: args, lookupEnv: env.lookup, stdout: stdout, stderr: stderr})
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
