package scenarios

import (
	"fmt"
	"strings"
)

// Warning marks a diagnostic that does not make a file invalid.
const Warning = "warning"

// Diagnostic is one problem found in a scenario file or event stream, with its position.
// Column is 0 when only the line is known, as for YAML syntax errors; Line is 0 when
// the problem concerns the whole file.
type Diagnostic struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Message  string `json:"message"`
	Hint     string `json:"hint,omitempty"`
	Severity string `json:"severity,omitempty"` // empty for errors, or Warning
}

// Error writes the problem as file:line:col: message, with its hint if it has one.
func (d Diagnostic) Error() string {
	var b strings.Builder
	b.WriteString(d.File)
	if d.Line > 0 {
		fmt.Fprintf(&b, ":%d", d.Line)
	}
	if d.Line > 0 && d.Column > 0 {
		fmt.Fprintf(&b, ":%d", d.Column)
	}
	b.WriteString(": ")
	if d.Severity != "" {
		b.WriteString(d.Severity + ": ")
	}
	b.WriteString(d.Message)
	if d.Hint != "" {
		b.WriteString(" (hint: ")
		b.WriteString(d.Hint)
		b.WriteString(")")
	}
	return b.String()
}

// LoadError collects every problem found while loading a scenario set.
type LoadError struct {
	Diagnostics []Diagnostic
}

// Error lists every problem, one a line.
func (e *LoadError) Error() string {
	lines := make([]string, len(e.Diagnostics))
	for i, d := range e.Diagnostics {
		lines[i] = d.Error()
	}
	return fmt.Sprintf("%d problem(s) in scenarios:\n%s", len(lines), strings.Join(lines, "\n"))
}

// Position is a place in a scenario file: the file as the load displays it, and the
// line and column, counted from 1.
type Position struct {
	File         string
	Line, Column int
}

// String returns the position as file:line:column.
func (p Position) String() string { return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Column) }

// pos is the loader's short name for a Position.
type pos = Position

// diagnostics accumulates problems while a file is parsed.
type diagnostics struct {
	list []Diagnostic
}

func (d *diagnostics) add(p pos, hint, format string, args ...any) {
	d.list = append(d.list, Diagnostic{File: p.File, Line: p.Line, Column: p.Column, Message: fmt.Sprintf(format, args...), Hint: hint})
}

func (sc *Scenario) diagnostic(msg, hint string) Diagnostic {
	return Diagnostic{File: sc.Source.File, Line: sc.Source.Line, Column: sc.Source.Column, Message: msg, Hint: hint}
}
