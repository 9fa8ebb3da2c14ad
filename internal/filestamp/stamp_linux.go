//go:build linux

package filestamp

import (
	"io/fs"
	"syscall"
	"time"
)

// systemStamp is the inode's change time and number, from the system's stat.
func systemStamp(info fs.FileInfo) (time.Time, uint64) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return time.Time{}, 0
	}
	return time.Unix(int64(st.Ctim.Sec), int64(st.Ctim.Nsec)), uint64(st.Ino)
}
