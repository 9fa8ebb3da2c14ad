package scenarios

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"text/template"
	"text/template/parse"
	"time"
	"unicode/utf8"
)

// maxRenderBytes caps what one template may produce, and the strings the functions that
// join strings may make, so a runaway template cannot eat memory.
const maxRenderBytes = 1 << 20

// maxFormatWidth caps a width or precision in a printf format: fmt pads a value to its
// width (up to a million) in memory before anything sees it, and a format may have many.
const maxFormatWidth = 1000

// Limits bound the work of one run's templates, so that no scenario, and no request,
// can keep the server busy for good. A field that is 0 takes its default.
type Limits struct {
	// Iterations is the most steps a run's templates may take together: every pass
	// through a {{ range }} body and every template executed or called counts one.
	Iterations int
	// Time is the longest a run's templates may take together.
	Time time.Duration
}

// DefaultLimits returns the limits a server has unless told otherwise: 100,000
// iterations and 1 second per run.
func DefaultLimits() Limits { return Limits{Iterations: 100_000, Time: time.Second} }

// orDefault fills the fields left 0 with their defaults.
func (l Limits) orDefault() Limits {
	d := DefaultLimits()
	if l.Iterations <= 0 {
		l.Iterations = d.Iterations
	}
	if l.Time <= 0 {
		l.Time = d.Time
	}
	return l
}

// LimitError says that a run's templates went past one of their limits.
type LimitError struct {
	// Limit names the limit: "iterations", "time" or "output" (the size of a template's
	// output or of a string a function makes).
	Limit string
	msg   string
}

// Error names the limit the templates went past, and its flag.
func (e *LimitError) Error() string { return e.msg }

// tickFunc names the function that counts the steps of a run's templates. The loader
// puts a call to it at the start of every template and of every {{ range }} body, and
// it is added to the run's functions only, so no scenario can call it.
const tickFunc = "_tick"

// budget is what is left of one run's Limits. It is used by one goroutine.
type budget struct {
	ctx      context.Context // the run's: its end stops the templates
	client   context.Context // PlanOptions.Client: its end stops them too
	limits   Limits
	left     int
	deadline time.Time // set by the first step
}

func newBudget(ctx context.Context, opts PlanOptions) budget {
	limits := opts.Limits.orDefault()
	return budget{ctx: ctx, client: opts.Client, limits: limits, left: limits.Iterations}
}

// tick counts one step. It fails once the run's templates have taken too many steps or
// too long, or when the run has ended, and text/template stops executing at the error.
func (b *budget) tick() (string, error) {
	b.left--
	if b.left < 0 {
		return "", &LimitError{Limit: "iterations",
			msg: fmt.Sprintf("the run's templates went past the limit of %d iterations (-template-iterations)", b.limits.Iterations)}
	}
	if err := stopped(b.ctx, b.client); err != nil {
		return "", fmt.Errorf("the run was stopped: %w", err)
	}
	now := time.Now()
	if b.deadline.IsZero() {
		b.deadline = now.Add(b.limits.Time)
	} else if now.After(b.deadline) {
		return "", &LimitError{Limit: "time",
			msg: fmt.Sprintf("the run's templates went past the limit of %s (-template-time)", b.limits.Time)}
	}
	return "", nil
}

// errRenderTooLarge is what a template whose output grows past maxRenderBytes fails with.
var errRenderTooLarge = &LimitError{Limit: "output", msg: fmt.Sprintf("template output exceeds %d MiB", maxRenderBytes>>20)}

// limitedBuilder stops a template whose output grows past maxRenderBytes.
type limitedBuilder struct{ b *strings.Builder }

func (w limitedBuilder) Write(p []byte) (int, error) {
	if w.b.Len()+len(p) > maxRenderBytes {
		return 0, errRenderTooLarge
	}
	return w.b.Write(p)
}

// addTicks puts a call to tickFunc at the start of every template of the set and of
// every {{ range }} body in them: text/template offers no other hook into a loop whose
// body calls nothing, or into a template that calls itself.
func addTicks(set *template.Template) {
	for _, t := range set.Templates() {
		if t.Tree == nil || t.Tree.Root == nil {
			continue
		}
		tickList(t.Tree, t.Tree.Root)
	}
}

// tickList starts list with a tick and does the same to the range bodies within it.
func tickList(tree *parse.Tree, list *parse.ListNode) {
	if list == nil {
		return
	}
	for _, n := range list.Nodes {
		switch x := n.(type) {
		case *parse.IfNode:
			tickList(tree, x.List)
			tickList(tree, x.ElseList)
		case *parse.WithNode:
			tickList(tree, x.List)
			tickList(tree, x.ElseList)
		case *parse.RangeNode:
			x.List.Nodes = append([]parse.Node{tickAction(tree, x.Position())}, x.List.Nodes...)
			tickList(tree, x.List)
			tickList(tree, x.ElseList)
		}
	}
	if list == tree.Root {
		list.Nodes = append([]parse.Node{tickAction(tree, list.Position())}, list.Nodes...)
	}
}

// tickAction is {{ _tick }}, which prints nothing.
func tickAction(tree *parse.Tree, at parse.Pos) *parse.ActionNode {
	call := &parse.CommandNode{NodeType: parse.NodeCommand, Pos: at,
		Args: []parse.Node{parse.NewIdentifier(tickFunc).SetTree(tree).SetPos(at)}}
	return &parse.ActionNode{NodeType: parse.NodeAction, Pos: at, Line: 0,
		Pipe: &parse.PipeNode{NodeType: parse.NodePipe, Pos: at, Cmds: []*parse.CommandNode{call}}}
}

// printfFunc is the template function printf: fmt.Sprintf, refusing a width or
// precision above maxFormatWidth and a result that would be longer than maxRenderBytes,
// both of which fmt would build in memory in one call.
func printfFunc(format string, args ...any) (string, error) {
	size, err := formatSize(format, args)
	if err != nil {
		return "", err
	}
	if err := checkJoinSize("printf", size+argsSize(args)); err != nil {
		return "", err
	}
	return fmt.Sprintf(format, args...), nil
}

// printFunc is the template function print, and with ln println, refusing a result
// longer than maxRenderBytes.
func printFunc(ln bool) func(args ...any) (string, error) {
	name := "print"
	if ln {
		name = "println"
	}
	return func(args ...any) (string, error) {
		if err := checkJoinSize(name, argsSize(args)); err != nil {
			return "", err
		}
		if ln {
			return fmt.Sprintln(args...), nil
		}
		return fmt.Sprint(args...), nil
	}
}

// argsSize is how long the strings among args are together.
func argsSize(args []any) int {
	n := 0
	for _, a := range args {
		if s, ok := a.(string); ok {
			n += len(s)
		}
	}
	return n
}

// checkJoinSize refuses to let the function fn make a string of n bytes, if that is
// more than maxRenderBytes.
func checkJoinSize(fn string, n int) error {
	if n > maxRenderBytes {
		return &LimitError{Limit: "output", msg: fmt.Sprintf("%s would make a string of more than %d MiB", fn, maxRenderBytes>>20)}
	}
	return nil
}

// formatSize is how long a format's text and the widths and precisions of its verbs
// are together; it fails for a width or precision above maxFormatWidth, given in the
// format or, for *, by an argument.
func formatSize(format string, args []any) (int, error) {
	size, arg := len(format), 0
	number := func(i int) (n, next int, err error) {
		if i < len(format) && format[i] == '*' {
			if arg >= 0 && arg < len(args) {
				n, _ = args[arg].(int)
			}
			arg++
			i++
		} else {
			for ; i < len(format) && '0' <= format[i] && format[i] <= '9'; i++ {
				n = min(n*10+int(format[i]-'0'), maxFormatWidth+1)
			}
		}
		if n > maxFormatWidth || n < -maxFormatWidth {
			return 0, i, &LimitError{Limit: "output", msg: fmt.Sprintf("printf takes a width or precision of at most %d", maxFormatWidth)}
		}
		return max(n, -n), i, nil
	}
	index := func(i int) int { // an explicit argument index, [n]
		if i < len(format) && format[i] == '[' {
			end := strings.IndexByte(format[i:], ']')
			if end < 0 {
				return len(format)
			}
			n, err := strconv.Atoi(format[i+1 : i+end])
			if err != nil || n < 1 || n > len(args) {
				n = len(args) + 1 // fmt prints BADINDEX, and takes no argument
			}
			arg = n - 1
			return i + end + 1
		}
		return i
	}
	for i := 0; i < len(format); {
		if format[i] != '%' {
			i++
			continue
		}
		i++
		for i < len(format) && strings.IndexByte("+-# 0", format[i]) >= 0 {
			i++
		}
		i = index(i)
		width, i, err := number(i)
		if err != nil {
			return 0, err
		}
		size += width
		if i < len(format) && format[i] == '.' {
			i = index(i + 1)
			prec, next, err := number(i)
			if err != nil {
				return 0, err
			}
			size, i = size+prec, next
		}
		i = index(i)
		if i < len(format) {
			verb, w := utf8.DecodeRuneInString(format[i:])
			if verb != '%' {
				arg++
			}
			i += w
		}
	}
	return size, nil
}
