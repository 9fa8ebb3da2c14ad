package hangup

import (
	"net"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// tcpPair returns both ends of a loopback TCP connection: the server's, then the client's.
func tcpPair(t *testing.T) (net.Conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	return server, client
}

func pipePair(*testing.T) (net.Conn, net.Conn) { return net.Pipe() }

func TestAClientThatHangsUpIsNoticed(t *testing.T) {
	for name, pair := range map[string]func(*testing.T) (net.Conn, net.Conn){"tcp (epoll on Linux)": tcpPair, "pipe (read)": pipePair} {
		t.Run(name, func(t *testing.T) {
			var w Watcher
			server, client := pair(t)
			defer server.Close()
			gone := make(chan struct{}, 2)
			stop := w.Watch(server, func() { gone <- struct{}{} })
			defer stop()
			other, otherClient := pair(t)
			defer other.Close()
			defer otherClient.Close()
			stopOther := w.Watch(other, func() { t.Error("a connection whose client stayed was reported") })
			defer stopOther()

			select {
			case <-gone:
				t.Fatal("reported before the client hung up")
			case <-time.After(50 * time.Millisecond):
			}
			client.Close()
			select {
			case <-gone:
			case <-time.After(5 * time.Second):
				t.Fatal("the hang-up was not noticed within 5 s")
			}
			select {
			case <-gone:
				t.Fatal("reported twice")
			case <-time.After(50 * time.Millisecond):
			}
		})
	}
}

func TestAStoppedWatchReportsNothing(t *testing.T) {
	for name, pair := range map[string]func(*testing.T) (net.Conn, net.Conn){"tcp (epoll on Linux)": tcpPair, "pipe (read)": pipePair} {
		t.Run(name, func(t *testing.T) {
			var w Watcher
			server, client := pair(t)
			stop := w.Watch(server, func() { t.Error("reported after the watch stopped") })
			stop()
			client.Close()
			time.Sleep(100 * time.Millisecond)
			server.Close()
		})
	}
}
