package verify

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/agui-mock/agui-mock/protocol"
)

// WriteText writes the report for people: a line per scenario, file:line first, the
// first difference or error in words, and a summary.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	for _, res := range r.Results {
		fmt.Fprintf(&b, "%s: %s: scenario %s", res.Where(), res.Status, res.Scenario)
		if res.Difference != "" {
			fmt.Fprintf(&b, ": %s", res.Difference)
		}
		if more := res.problems() - 1; more > 0 && res.Status == Drift {
			fmt.Fprintf(&b, " (and %d more difference(s))", more)
		}
		b.WriteByte('\n')
		for _, t := range res.Turns {
			for _, w := range t.Warnings {
				fmt.Fprintf(&b, "%s: warning: scenario %s: %s: %s\n", res.Where(), res.Scenario, t.Name(), w)
			}
		}
		switch {
		case res.Updated != "":
			fmt.Fprintf(&b, "%s: updated: scenario %s re-recorded from the agent; what changed: %s\n", res.Where(), res.Scenario, res.Updated)
		case res.NotUpdated != "":
			fmt.Fprintf(&b, "%s: not updated: scenario %s: %s\n", res.Where(), res.Scenario, res.NotUpdated)
		}
	}
	for _, skip := range r.Skipped {
		fmt.Fprintf(&b, "%s:%d: skipped: scenario %s: %s\n", skip.File, skip.Line, skip.Scenario, skip.Reason)
	}
	fmt.Fprintf(&b, "%d scenario(s) verified: %d pass, %d drift, %d error", len(r.Results), r.Count(Pass), r.Count(Drift), r.Count(Error))
	if n := r.Warnings(); n > 0 {
		fmt.Fprintf(&b, "; %d warning(s)", n)
	}
	if n := len(r.Skipped); n > 0 {
		fmt.Fprintf(&b, "; %d skipped", n)
	}
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}

// problems counts the differences and errors of the scenario's turns.
func (r Result) problems() int {
	n := 0
	for _, t := range r.Turns {
		n += len(t.Differences)
		if t.Error != "" {
			n++
		}
	}
	return n
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// The JUnit XML format as CI systems read it: a suite per scenario, a test case per run
// of a conversation.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name     string      `xml:"name,attr"`
		File     string      `xml:"file,attr"`
		Tests    int         `xml:"tests,attr"`
		Failures int         `xml:"failures,attr"`
		Errors   int         `xml:"errors,attr"`
		Time     string      `xml:"time,attr"`
		Cases    []junitCase `xml:"testcase"`
	}
	junitCase struct {
		Name       string           `xml:"name,attr"`
		ClassName  string           `xml:"classname,attr"`
		File       string           `xml:"file,attr"`
		Line       int              `xml:"line,attr"`
		Time       string           `xml:"time,attr"`
		Properties *junitProperties `xml:"properties,omitempty"`
		Failure    *junitProblem    `xml:"failure,omitempty"`
		Error      *junitProblem    `xml:"error,omitempty"`
		SystemOut  string           `xml:"system-out,omitempty"`
	}
	// junitProperties carry the producer rules the agent broke in the run, by name, so
	// that CI sees them on a run that passed with warnings too.
	junitProperties struct {
		Property []junitProperty `xml:"property"`
	}
	junitProperty struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	junitProblem struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
)

// WriteJUnit writes the report as JUnit XML: a test suite per scenario, a test case per
// run of each conversation, failed when it drifted, in error when the agent could not
// be asked.
func (r *Report) WriteJUnit(w io.Writer) error {
	all := junitSuites{Name: "agui-mock verify"}
	for _, res := range r.Results {
		suite := junitSuite{Name: res.Scenario, File: res.File}
		var seconds float64
		for _, t := range res.Turns {
			c := junitCase{Name: t.Name(), ClassName: res.Scenario, File: res.File, Line: res.Line, Time: fmt.Sprintf("%.3f", t.Duration.Seconds())}
			seconds += t.Duration.Seconds()
			if len(t.Breaks) > 0 {
				c.Properties = &junitProperties{Property: []junitProperty{{Name: "breaks", Value: protocol.RuleNames(t.Breaks)}}}
			}
			if len(t.Warnings) > 0 {
				c.SystemOut = "warning: " + strings.Join(t.Warnings, "\nwarning: ")
			}
			switch t.Status {
			case Drift:
				c.Failure = &junitProblem{Message: t.problem(), Type: string(Drift), Text: strings.Join(t.Differences, "\n")}
				suite.Failures++
			case Error:
				c.Error = &junitProblem{Message: t.Error, Type: string(Error), Text: t.Error}
				suite.Errors++
			}
			suite.Cases = append(suite.Cases, c)
		}
		suite.Tests, suite.Time = len(suite.Cases), fmt.Sprintf("%.3f", seconds)
		all.Tests, all.Failures, all.Errors = all.Tests+suite.Tests, all.Failures+suite.Failures, all.Errors+suite.Errors
		all.Suites = append(all.Suites, suite)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(all); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
