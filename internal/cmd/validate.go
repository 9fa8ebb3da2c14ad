package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/agui-mock/agui-mock/protocol"
	"github.com/agui-mock/agui-mock/scenarios"
)

// report is what validate prints with -format json.
type report struct {
	Valid     bool                   `json:"valid"`
	Scenarios int                    `json:"scenarios"`
	Streams   int                    `json:"streams"`
	Problems  []scenarios.Diagnostic `json:"problems"`
}

// runValidate is the validate command: scenario files and directories, and AG-UI event
// streams, checked as the server would check them.
func runValidate(_ context.Context, in invocation) int {
	c := newValidateConfig()
	fs := validateFlags(c, in.stderr)
	paths, code := parseFlags(fs, in.args, true, in.lookupEnv, in.stderr)
	if code >= 0 {
		return code
	}
	err := checkFlags(flagCheck{"format", c.format, c.format == "text" || c.format == "json", "text or json"})
	if err == nil {
		err = checkTemplateLimits(c.limits)
	}
	if err != nil {
		fmt.Fprintln(in.stderr, "agui-mock validate:", err)
		return 2
	}
	if len(paths) == 0 {
		fs.Usage()
		return 2
	}
	rep := validatePaths(paths, c.limits, !c.noBuiltin)
	if c.format == "json" {
		enc := json.NewEncoder(in.stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rep)
	} else {
		for _, d := range rep.Problems {
			fmt.Fprintln(in.stdout, d.Error())
		}
		fmt.Fprintf(in.stdout, "%d scenario(s), %d stream(s): %s\n", rep.Scenarios, rep.Streams, summary(rep))
	}
	if !rep.Valid {
		return 1
	}
	return 0
}

// validateConfig is what validate runs with.
type validateConfig struct {
	format    string
	noBuiltin bool
	limits    scenarios.Limits
}

// newValidateConfig returns the settings validate starts with.
func newValidateConfig() *validateConfig {
	return &validateConfig{format: "text", limits: scenarios.DefaultLimits()}
}

// validateFlagSet is the flag set of validate, for the command table.
func validateFlagSet() *flag.FlagSet { return validateFlags(newValidateConfig(), io.Discard) }

// validateFlags defines the validate command's flags into c, each with the value c
// holds as its default.
func validateFlags(c *validateConfig, stderr io.Writer) *flag.FlagSet {
	fs := newFlagSet("validate", stderr)
	fs.StringVar(&c.format, "format", c.format, "output format: text or json")
	fs.BoolVar(&c.noBuiltin, "no-builtin", c.noBuiltin, "check the scenarios without the built-in ones, as serve -no-builtin serves them")
	templateLimitFlags(fs, &c.limits)
	fs.Usage = func() {
		fmt.Fprintf(stderr, `Usage: agui-mock validate [flags] PATH...

Checks scenario files (.yaml, .yml; directories are searched) exactly as the server
loads them, together with the built-in scenarios unless -no-builtin, and AG-UI event streams (.json: an array of events or a conformance fixture
with a "stream" array; .jsonl: one event per line) against the event rules of the
official client. Every problem is printed as file:line:col: message, or as
file:line: message for YAML syntax errors, whose column is not known. The exit status
is 0 when everything is valid, 1 when there are problems, 2 for usage errors.

Flags:
`)
		fs.PrintDefaults()
	}
	return fs
}

func summary(rep report) string {
	errs, warnings := 0, 0
	for _, d := range rep.Problems {
		if d.Severity == scenarios.Warning {
			warnings++
		} else {
			errs++
		}
	}
	if errs == 0 && warnings == 0 {
		return "valid"
	}
	return fmt.Sprintf("%d problem(s), %d warning(s)", errs, warnings)
}

// validatePaths checks every path and the scenarios found together, as one set, their
// templates within limits: the set serve makes of the same files, with the built-in
// scenarios when builtin is set (see setSources). What is counted and reported is the
// paths' scenarios.
func validatePaths(paths []string, limits scenarios.Limits, builtin bool) report {
	rep := report{Problems: []scenarios.Diagnostic{}}
	var own []scenarios.Source
	for _, p := range paths {
		info, err := os.Stat(p)
		switch {
		case err != nil:
			rep.Problems = append(rep.Problems, scenarios.Diagnostic{File: p, Message: err.Error()})
		case info.IsDir() || scenarios.IsScenarioFile(p):
			own = append(own, pathSource(p, info.IsDir()))
		case protocol.IsStreamFile(p):
			rep.Streams++
			rep.Problems = append(rep.Problems, validateStream(p)...)
		default:
			rep.Problems = append(rep.Problems, scenarios.Diagnostic{File: p, Message: "not a scenario file (.yaml, .yml) or an event stream (.json, .jsonl)"})
		}
	}
	if len(own) > 0 {
		found, diags := scenarios.Gather(context.Background(), nil, setSources(own, builtin)...)
		rep.Problems = append(rep.Problems, diags...)
		for _, sc := range found {
			if !sc.Default() {
				rep.Scenarios++
			}
		}
		var le *scenarios.LoadError
		set, err := scenarios.NewSet(context.Background(), limits, found)
		switch {
		case errors.As(err, &le):
			rep.Problems = append(rep.Problems, le.Diagnostics...)
		case err == nil:
			rep.Problems = append(rep.Problems, set.Warnings()...)
		}
	}
	rep.Valid = true
	for _, d := range rep.Problems {
		if d.Severity != scenarios.Warning {
			rep.Valid = false
		}
	}
	return rep
}

// pathSource is the source of a scenario path named on the command line: a directory,
// searched, or one scenario file, walked from itself.
func pathSource(p string, isDir bool) scenarios.Source {
	if isDir {
		return scenarios.Source{FS: os.DirFS(p), Root: ".", Label: p}
	}
	return scenarios.Source{FS: os.DirFS(filepath.Dir(p)), Root: filepath.Base(p), Label: p}
}

// readFile reads a file named on the command line as the loader reads scenario files:
// regular files only, up to the loader's size limit.
func readFile(p string) ([]byte, *scenarios.Diagnostic) {
	data, err := scenarios.ReadFile(os.DirFS(filepath.Dir(p)), filepath.Base(p))
	if err != nil {
		return nil, &scenarios.Diagnostic{File: p, Message: err.Error()}
	}
	return data, nil
}

// validateStream checks a recorded event stream against the sequence rules.
func validateStream(p string) []scenarios.Diagnostic {
	data, diag := readFile(p)
	if diag != nil {
		return []scenarios.Diagnostic{*diag}
	}
	events, err := protocol.ReadStreamFile(p, data)
	if err != nil {
		var fe *protocol.StreamFileError
		errors.As(err, &fe)
		return []scenarios.Diagnostic{{File: p, Line: fe.Line, Column: fe.Column, Message: err.Error()}}
	}
	var diags []scenarios.Diagnostic
	at := func(i int, msg string, sev string) scenarios.Diagnostic {
		d := scenarios.Diagnostic{File: p, Message: msg, Severity: sev}
		if i >= 0 && i < len(events) {
			d.Line, d.Column = events[i].Line, events[i].Column
		}
		return d
	}
	v := &protocol.RuleChecker{}
	for _, pe := range events {
		if err := v.Check(pe.Event); err != nil {
			var se *protocol.SequenceError
			errors.As(err, &se)
			diags = append(diags, at(se.Index, err.Error(), ""))
			break
		}
	}
	if len(diags) == 0 {
		if err := v.End(); err != nil {
			diags = append(diags, at(len(events)-1, err.Error(), ""))
		}
	}
	for _, w := range v.Warnings {
		diags = append(diags, at(w.Index, w.Error(), scenarios.Warning))
	}
	return diags
}
