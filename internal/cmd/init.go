package cmd

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/agui-mock/agui-mock/internal/starter"
)

// runInit writes the starter folder into a directory (default: the current one):
// `agui-mock init [--copilotkit] [DIR]`.
func runInit(_ context.Context, in invocation) int {
	stdout, stderr := in.stdout, in.stderr
	dir, flavour, spec := ".", starter.AGUI, "chat.spec.ts"
	var dirs []string
	for _, arg := range in.args {
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
	packages, err := specPackages(starter.Files(flavour))
	if err != nil {
		fmt.Fprintln(stderr, "agui-mock init:", err)
		return 1
	}
	fmt.Fprintf(stdout, "\nNext:\n  npm i -D %s\n  npx agui-mock --scenarios %s\n  npx playwright test\nand see %s for the Playwright kit.\n",
		strings.Join(packages, " "), filepath.Join(dir, "scenarios"), filepath.Join(dir, "tests", spec))
	return 0
}

// specPackages lists the npm packages the starter's TypeScript files import, and
// agui-mock, whose binary the config's aguiMockServer starts: what a project must install
// before its first `npx playwright test`. It reads the imports rather than naming them,
// so that the advice cannot fall behind the files it is about.
func specPackages(files fs.FS) ([]string, error) {
	imported := regexp.MustCompile(`(?m)^import\b[^;]*?\bfrom\s+"([^"./][^"]*)"`)
	packages := []string{"agui-mock"}
	err := fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(p) != ".ts" {
			return err
		}
		src, err := fs.ReadFile(files, p)
		if err != nil {
			return fmt.Errorf("reading the starter's %s: %w", p, err)
		}
		for _, m := range imported.FindAllStringSubmatch(string(src), -1) {
			if name := packageName(m[1]); !strings.HasPrefix(name, "node:") && !slices.Contains(packages, name) {
				packages = append(packages, name)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing the starter's imports: %w", err)
	}
	slices.Sort(packages)
	return packages, nil
}

// packageName is the package an import specifier names: its first path segment, or
// its first two for a scoped package (@scope/name/sub is @scope/name).
func packageName(specifier string) string {
	parts := strings.SplitN(specifier, "/", 3)
	if strings.HasPrefix(specifier, "@") && len(parts) >= 2 {
		return parts[0] + "/" + parts[1]
	}
	return parts[0]
}
