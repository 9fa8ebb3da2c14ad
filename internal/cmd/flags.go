package cmd

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

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

// newFlagSet is the empty flag set of a command: named as its errors and help name it,
// returning its errors rather than exiting, writing them to stderr.
func newFlagSet(command string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("agui-mock "+command, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}
