package cmd

import (
	"flag"
	"os"
	"regexp"
	"testing"
)

// TestEveryFlagHasARowInTheFlagTables: every flag of every command in the command table
// has its row in the README's flag tables, and every row there is a flag of a command,
// so that a flag added without its row, or removed leaving its row, fails here.
func TestEveryFlagHasARowInTheFlagTables(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	// A row's first cell names its flag: `--name` for serve and record, which share the
	// first table, or `command --name`.
	flagRow := regexp.MustCompile("(?m)^\\| `((?:[a-z-]+ )?--[a-z0-9-]+)` \\|")
	rows := map[string]bool{}
	for _, m := range flagRow.FindAllStringSubmatch(string(readme), -1) {
		if rows[m[1]] {
			t.Errorf("README.md has two rows for %s", m[1])
		}
		rows[m[1]] = true
	}
	flags := map[string]bool{}
	for _, c := range commands() {
		if c.flags == nil {
			continue
		}
		c.flags().VisitAll(func(f *flag.Flag) {
			row := "--" + f.Name
			if c.name != "serve" && c.name != "record" {
				row = c.name + " " + row
			}
			flags[row] = true
			if !rows[row] {
				t.Errorf("the flag -%s of %s has no row | `%s` | in README.md's flag tables", f.Name, c.name, row)
			}
		})
	}
	for row := range rows {
		if !flags[row] {
			t.Errorf("README.md's flag tables have a row for %s, a flag of no command", row)
		}
	}
}
