//go:build !linux

package hangup

import "net"

// poller is not used where there is no epoll.
type poller struct{}

// watchPolled cannot watch without epoll: every connection is watched by reading.
func (w *Watcher) watchPolled(net.Conn, func()) (func(), bool) { return nil, false }
