package watcher

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestBurstsOfHintsRescanOnceAfterTheyQuietDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hints := make(chan struct{}, 1)
		var rescans []time.Duration
		start := time.Now()
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() {
			defer close(done)
			loop(ctx, hints, nil, Config{Debounce: 100 * time.Millisecond, Logger: quiet()}, func() {
				rescans = append(rescans, time.Since(start))
			})
		}()
		for range 5 { // an editor's save: several events 30 ms apart
			hints <- struct{}{}
			time.Sleep(30 * time.Millisecond)
		}
		time.Sleep(time.Second)
		hints <- struct{}{}
		time.Sleep(time.Second)
		cancel()
		<-done
		want := []time.Duration{220 * time.Millisecond, 1250 * time.Millisecond}
		if len(rescans) != 2 || rescans[0] != want[0] || rescans[1] != want[1] {
			t.Errorf("rescans at %v, want %v", rescans, want)
		}
	})
}

func TestAnEndlessBurstStillRescans(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hints := make(chan struct{}, 1)
		rescans := 0
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() {
			defer close(done)
			loop(ctx, hints, nil, Config{Debounce: 100 * time.Millisecond, Logger: quiet()}, func() { rescans++ })
		}()
		for range 100 { // a file rewritten every 30 ms for 3 s
			hints <- struct{}{}
			time.Sleep(30 * time.Millisecond)
		}
		cancel()
		<-done
		if rescans != 5 { // 500 ms (5 debounce periods) after the first hint of each round
			t.Errorf("%d rescans during a 3 s burst", rescans)
		}
	})
}

func TestPollingRescansPeriodically(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := 0
		ctx, cancel := context.WithTimeout(t.Context(), 3500*time.Millisecond)
		defer cancel()
		loop(ctx, nil, nil, Config{Debounce: 100 * time.Millisecond, PollInterval: time.Second, Logger: quiet()}, func() { n++ })
		if n != 3 {
			t.Errorf("%d rescans in 3.5 s at 1 s intervals", n)
		}
	})
}

func TestFingerprintFollowsWhatTheLoaderReads(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	yamlOnly := func(name string) bool { return filepath.Ext(name) == ".yaml" }
	fp := func() string { return Fingerprint([]string{dir}, yamlOnly) }
	write("a.yaml", "one")
	base := fp()
	write("a.yaml.swp", "editor state")
	write(".hidden/b.yaml", "hidden")
	write("node_modules/pkg/ci.yaml", "a package's")
	if fp() != base {
		t.Error("files the loader ignores changed the fingerprint")
	}
	write("sub/c.yaml", "new")
	withSub := fp()
	if withSub == base {
		t.Error("a new file in a new directory did not change the fingerprint")
	}
	write("sub/c.yaml", "edited")
	if fp() == withSub {
		t.Error("an edit did not change the fingerprint")
	}
}

func TestFingerprintDoesNotOpenNamedPipes(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan string)
	go func() { done <- Fingerprint([]string{dir}, nil) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second): // opening the pipe would block for good
		// a writer lets the blocked open return, so that no goroutine is left behind
		if w, err := os.OpenFile(filepath.Join(dir, "pipe.yaml"), os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		<-done
		t.Fatal("Fingerprint waits on a named pipe")
	}
}

// TestANewerChangeAbandonsTheCallUnderWay: a reload still running when the files change
// again is abandoned (its context cancelled with ErrNewerChange); calls never overlap.
func TestANewerChangeAbandonsTheCallUnderWay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var running, most int
		var causes []error
		reload := func(ctx context.Context) {
			running++
			most = max(most, running)
			defer func() { running-- }()
			select {
			case <-ctx.Done(): // a reload of 5,000 files, stopped
				causes = append(causes, context.Cause(ctx))
			case <-time.After(10 * time.Second):
				causes = append(causes, nil)
			}
		}
		calls := &latest{}
		calls.start(t.Context(), reload)
		time.Sleep(time.Second)
		calls.start(t.Context(), reload) // a newer edit, a second into the first reload
		synctest.Wait()
		time.Sleep(20 * time.Second)
		calls.stop()
		if most != 1 || len(causes) != 2 || causes[0] != ErrNewerChange || causes[1] != nil {
			t.Errorf("at most %d calls at once; their ends: %v (want the first abandoned for the newer change, the second whole)", most, causes)
		}
	})
}

// TestARescanReadsOnlyWhatChanged: of a tree whose files were written long before they
// were read, a rescan reads the one edited since, and still sees the edit.
func TestARescanReadsOnlyWhatChanged(t *testing.T) {
	dir := t.TempDir()
	for i := range 20 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.yaml", i)), []byte("steps: []\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f := newFingerprinter()
	f.now = func() time.Time { return time.Now().Add(time.Hour) }
	var read []string
	f.read = func(name string) ([]byte, error) {
		read = append(read, filepath.Base(name))
		return os.ReadFile(name)
	}
	before := f.of([]string{dir}, nil)
	read = nil
	if err := os.WriteFile(filepath.Join(dir, "f07.yaml"), []byte("steps: [{}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	after := f.of([]string{dir}, nil)
	if after == before || len(read) != 1 || read[0] != "f07.yaml" {
		t.Errorf("the rescan read %v; the fingerprint changed: %v", read, after != before)
	}
	if after != Fingerprint([]string{dir}, nil) {
		t.Error("the remembering fingerprint differs from one read afresh")
	}
}
