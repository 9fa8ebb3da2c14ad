//go:build unix

package cmd

import "syscall"

// descriptorLimit returns how many files the process may open, its soft RLIMIT_NOFILE,
// and true; or false when it cannot be read. Go raises the soft limit to just under the
// hard one as a program starts (package syscall, since Go 1.19), so that it is read
// after the raise: what the process may use, not what its parent set.
func descriptorLimit() (uint64, bool) {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 0, false
	}
	return uint64(l.Cur), true
}
