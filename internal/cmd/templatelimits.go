package cmd

import (
	"flag"

	"github.com/agui-mock/agui-mock/scenarios"
)

// templateLimitFlags defines the flags that bound the work of a run's templates, and of
// the dry run of every scenario loaded, into l, each with the value l holds as its
// default (scenarios.DefaultLimits): serve, record and validate have them.
func templateLimitFlags(fs *flag.FlagSet, l *scenarios.Limits) {
	fs.IntVar(&l.Iterations, "template-iterations", l.Iterations, "most steps a run's templates may take together: each pass through a {{ range }} body and each template executed or called is one")
	fs.DurationVar(&l.Time, "template-time", l.Time, "longest a run's templates may take together; a run past either limit ends with RUN_ERROR, a scenario past one at load is refused")
}

// checkTemplateLimits checks the values of the flags templateLimitFlags defines.
func checkTemplateLimits(l scenarios.Limits) error {
	return checkFlags(
		flagCheck{"template-iterations", l.Iterations, l.Iterations >= 1, "1 or more"},
		flagCheck{"template-time", l.Time, l.Time > 0, "positive"},
	)
}
