package filestamp

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestAStampIsTrustedOnlyOnceTheFileHadSettled(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a.yaml")
	stat := func() Stamp {
		t.Helper()
		info, err := os.Stat(file)
		if err != nil {
			t.Fatal(err)
		}
		return Of(info)
	}
	if err := os.WriteFile(file, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	first := stat()
	if (Read{Stamp: first, At: time.Now()}).Unchanged(first) {
		t.Error("a file read right after it was written passes for unchanged")
	}
	settled := Read{Stamp: first, At: time.Now().Add(Margin + time.Minute)}
	if !settled.Unchanged(first) {
		t.Error("a file read well after it was written, with the same stamp, passes for changed")
	}
	if (Read{Stamp: first}).Unchanged(first) {
		t.Error("a read of no time passes for unchanged")
	}
	if err := os.WriteFile(file, []byte("three"), 0o644); err != nil {
		t.Fatal(err)
	}
	if settled.Unchanged(stat()) {
		t.Error("a file of another size passes for unchanged")
	}
	replacement := filepath.Join(filepath.Dir(file), "b.yaml")
	if err := os.WriteFile(replacement, []byte("three"), 0o644); err != nil {
		t.Fatal(err)
	}
	now := stat()
	if err := os.Rename(replacement, file); err != nil {
		t.Fatal(err)
	}
	if (Read{Stamp: now, At: time.Now().Add(time.Hour)}).Unchanged(stat()) {
		t.Error("a file replaced by another (renamed over it) passes for unchanged")
	}
	var zero Stamp
	if (Read{Stamp: zero, At: time.Now().Add(time.Hour)}).Unchanged(zero) {
		t.Error("a file system that tells no time passes a file for unchanged")
	}
}
