package hangup

import (
	"errors"
	"net"
	"syscall"
	"time"
)

// pollEvents are what a watched connection is polled for: the client shut down its end,
// or the connection broke. Not EPOLLIN: what the client sends is not a hang-up.
// One shot: a connection reported once is not reported again.
const pollEvents = syscall.EPOLLRDHUP | syscall.EPOLLHUP | syscall.EPOLLERR | epollOneShot

const epollOneShot = 1 << 30 // EPOLLONESHOT, which package syscall does not name

// idleExit is how long the polling goroutine waits before it checks whether anything is
// still watched, and ends if nothing is.
const idleExit = 100 * time.Millisecond

// poller is one epoll instance and the connections it watches, by descriptor; an
// entry's generation tells a connection from a later one that reuses its descriptor.
type poller struct {
	fd      int
	entries map[int32]entry
	gen     uint32
}

type entry struct {
	gen  uint32
	gone func()
}

// watchPolled watches a TCP connection through epoll; ok is false for connections it
// cannot watch so.
func (w *Watcher) watchPolled(conn net.Conn, gone func()) (stop func(), ok bool) {
	sc, isSyscall := conn.(syscall.Conn)
	if !isSyscall {
		return nil, false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil, false
	}
	fd := -1
	if err := raw.Control(func(f uintptr) { fd = int(f) }); err != nil || fd < 0 {
		return nil, false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.poller == nil {
		epfd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
		if err != nil {
			return nil, false
		}
		w.poller = &poller{fd: epfd, entries: map[int32]entry{}}
		go w.poll(w.poller)
	}
	p := w.poller
	p.gen++
	gen := p.gen
	ev := syscall.EpollEvent{Events: pollEvents, Fd: int32(fd), Pad: int32(gen)}
	if err := syscall.EpollCtl(p.fd, syscall.EPOLL_CTL_ADD, fd, &ev); err != nil {
		return nil, false
	}
	p.entries[int32(fd)] = entry{gen: gen, gone: gone}
	w.watched++
	return func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.forget(p, int32(fd), gen)
	}, true
}

// forget ends the watch of descriptor fd of generation gen, if it is still watched.
func (w *Watcher) forget(p *poller, fd int32, gen uint32) bool {
	if e, ok := p.entries[fd]; !ok || e.gen != gen || w.poller != p {
		return false
	}
	delete(p.entries, fd)
	w.watched--
	_ = syscall.EpollCtl(p.fd, syscall.EPOLL_CTL_DEL, int(fd), nil)
	return true
}

// poll waits for hang-ups and reports them, until nothing has been watched for a while.
func (w *Watcher) poll(p *poller) {
	events := make([]syscall.EpollEvent, 64)
	for {
		n, err := syscall.EpollWait(p.fd, events, int(idleExit/time.Millisecond))
		if err != nil && !errors.Is(err, syscall.EINTR) {
			n = 0
		}
		var gone []func()
		w.mu.Lock()
		for _, ev := range events[:max(n, 0)] {
			if e, ok := p.entries[ev.Fd]; ok && w.forget(p, ev.Fd, uint32(ev.Pad)) {
				gone = append(gone, e.gone)
			}
		}
		exit := w.watched == 0 && n <= 0
		if exit {
			w.poller = nil
			_ = syscall.Close(p.fd)
		}
		w.mu.Unlock()
		for _, f := range gone {
			f()
		}
		if exit {
			return
		}
	}
}
