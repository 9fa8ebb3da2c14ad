// Package testkit is for tests only: a fake AG-UI agent whose every run a test scripts
// (Agent), the program started on a free port until the test ends (Start), the real
// binary built once for the tests of a process that run it as a process (Binary), and
// waiting for what happens asynchronously (Eventually).
package testkit

import (
	"testing"
	"time"
)

// Eventually fails the test unless check holds within 10 s. It is for what the test
// cannot step through on a fake clock: file-system events, a server's goroutines.
func Eventually(t testing.TB, what string, check func() bool) {
	t.Helper()
	within(t, 10*time.Second, what, check)
}

// within fails the test unless check holds within limit.
func within(t testing.TB, limit time.Duration, what string, check func() bool) {
	t.Helper()
	for deadline := time.Now().Add(limit); !check(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s", limit, what)
		}
	}
}
