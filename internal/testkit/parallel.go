package testkit

import (
	"flag"
	"runtime"
	"strconv"
)

// WaitersInParallel lets n parallel tests run at once (at least as many as there are
// CPUs), as -parallel n would, unless the command line sets -parallel itself. It is for a
// package whose parallel tests wait on timers, sockets and other processes rather than
// use the CPU: go test's default of one at a time per CPU would leave the CPUs idle.
// Call it from TestMain, before m.Run.
func WaitersInParallel(n int) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", strconv.Itoa(max(n, runtime.GOMAXPROCS(0))))
	}
}
