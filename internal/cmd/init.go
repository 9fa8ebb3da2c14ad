package cmd

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/agui-mock/agui-mock/internal/starter"
)

// runInit writes the starter folder into a directory (default: the current one):
// `agui-mock init [--copilotkit] [DIR]`.
func runInit(args []string, stdout, stderr io.Writer) int {
	dir, flavour, spec := ".", starter.AGUI, "chat.spec.ts"
	var dirs []string
	for _, arg := range args {
		switch arg {
		case "-h", "--help", "-help":
			fmt.Fprint(stdout, "Usage: agui-mock init [--copilotkit] [DIR]\n\nWrites a starter folder into DIR (default: the current directory): scenarios to\nstart from and a Playwright spec using @agui-mock/playwright. With --copilotkit, for a\nCopilotKit app whose runtimeUrl points at the mock's CopilotKit routes: a spec that\nseeds the threads the app restores, and a config that starts the app so. Existing\nfiles are never overwritten: init then writes nothing.\n")
			return 0
		case "--copilotkit", "-copilotkit":
			flavour, spec = starter.CopilotKit, "copilotkit.spec.ts"
		default:
			if strings.HasPrefix(arg, "-") {
				fmt.Fprintf(stderr, "agui-mock init: unknown flag %q (init takes --copilotkit and a directory)\n", arg)
				return 2
			}
			dirs = append(dirs, arg)
		}
	}
	switch len(dirs) {
	case 0:
	case 1:
		dir = dirs[0]
	default:
		fmt.Fprintf(stderr, "agui-mock init: unexpected argument %q (give one directory)\n", dirs[1])
		return 2
	}
	written, err := starter.Write(dir, flavour)
	for _, p := range written {
		fmt.Fprintln(stdout, "wrote", filepath.Join(dir, filepath.FromSlash(p)))
	}
	if err != nil {
		fmt.Fprintln(stderr, "agui-mock init:", err)
		return 1
	}
	fmt.Fprintf(stdout, "\nNext: npx agui-mock --scenarios %s, and see %s for the Playwright kit.\n",
		filepath.Join(dir, "scenarios"), filepath.Join(dir, "tests", spec))
	return 0
}
