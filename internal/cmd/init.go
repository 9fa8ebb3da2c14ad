package cmd

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/agui-mock/agui-mock/internal/starter"
)

// runInit writes the starter folder into a directory (default: the current one):
// `agui-mock init [DIR]`.
func runInit(args []string, stdout, stderr io.Writer) int {
	dir := "."
	switch {
	case len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help"):
		fmt.Fprint(stdout, "Usage: agui-mock init [DIR]\n\nWrites a starter folder into DIR (default: the current directory): scenarios to\nstart from and a Playwright spec using @agui-mock/playwright. Existing files are\nnever overwritten: init then writes nothing.\n")
		return 0
	case len(args) == 1:
		dir = args[0]
	case len(args) > 1:
		fmt.Fprintf(stderr, "agui-mock init: unexpected argument %q (give one directory)\n", args[1])
		return 2
	}
	written, err := starter.Write(dir)
	for _, p := range written {
		fmt.Fprintln(stdout, "wrote", filepath.Join(dir, filepath.FromSlash(p)))
	}
	if err != nil {
		fmt.Fprintln(stderr, "agui-mock init:", err)
		return 1
	}
	fmt.Fprintf(stdout, "\nNext: npx agui-mock --scenarios %s, and see %s for the Playwright kit.\n",
		filepath.Join(dir, "scenarios"), filepath.Join(dir, "tests", "chat.spec.ts"))
	return 0
}
