// Package hangup notices clients that close connections no goroutine reads: a stream
// that only waits to write its next event holds no goroutine of its own, so nothing
// would see its client leave until the next write failed.
package hangup

import (
	"net"
	"sync"
)

// Watcher tells when the clients of watched connections hang up. On Linux one
// goroutine waits for every watched TCP connection (epoll) and runs only while some
// are watched; other connections and systems take a goroutine each, blocked reading.
// The zero Watcher is ready to use.
type Watcher struct {
	mu      sync.Mutex
	poller  *poller // nil while nothing is watched through it
	watched int
}

// Watch calls gone, once, when conn's client closes it or the
// connection breaks. The returned stop ends the watch; it must be called before conn
// is closed, and gone is not called after it returns.
func (w *Watcher) Watch(conn net.Conn, gone func()) (stop func()) {
	if stop, ok := w.watchPolled(conn, gone); ok {
		return stop
	}
	return watchReading(conn, gone)
}

// watchReading watches conn with a goroutine that reads it until it breaks; what the
// client sends meanwhile is discarded.
func watchReading(conn net.Conn, gone func()) func() {
	var mu sync.Mutex
	stopped := false
	go func() {
		var b [1]byte
		for {
			if _, err := conn.Read(b[:]); err != nil {
				break
			}
		}
		mu.Lock()
		report := !stopped
		stopped = true
		mu.Unlock()
		if report {
			gone()
		}
	}()
	return func() {
		mu.Lock()
		defer mu.Unlock()
		stopped = true
	}
}
