package testctl

import (
	"fmt"
	"strings"
	"testing"
)

type entry struct {
	seq  int64
	path string
}

func paths(entries []entry) string {
	var out []string
	for _, e := range entries {
		out = append(out, e.path)
	}
	return strings.Join(out, ",")
}

func all(entry) bool { return true }

func TestTheJournalKeepsTheLatestEntries(t *testing.T) {
	j := NewJournal(3, func(e *entry, seq int64) { e.seq = seq })
	for i := range 7 {
		j.Add([]string{"a", "b"}[i%2], entry{path: fmt.Sprint(i)})
	}
	got := j.List("", all)
	if paths(got) != "4,5,6" || got[0].seq != 5 || got[2].seq != 7 {
		t.Errorf("kept %+v", got)
	}
	if got := paths(j.List("b", all)); got != "5" {
		t.Errorf("test b's entries: %s", got)
	}
	if got := paths(j.List("", func(e entry) bool { return e.path != "4" })); got != "5,6" {
		t.Errorf("filtered: %s", got)
	}
	j.Reset("a", false)
	if got := paths(j.List("", all)); got != "5" {
		t.Errorf("after resetting a: %s", got)
	}
	j.Add("", entry{path: "7"})
	if got := paths(j.List("", all)); got != "5,7" {
		t.Errorf("after adding again: %s", got)
	}
	j.Reset("", false) // the untagged entries only
	if got := paths(j.List("", all)); got != "5" {
		t.Errorf("after resetting the untagged entries: %s", got)
	}
	j.Reset("", true)
	if got := j.List("", all); len(got) != 0 {
		t.Errorf("after resetting everything: %+v", got)
	}
}
