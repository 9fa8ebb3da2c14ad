// Package filestamp tells whether a file may have changed since it was read without
// reading it again: from what stat says of it, and only once that can be trusted.
//
// A file system stamps a write with a coarse clock (a few milliseconds on Linux, two
// seconds on FAT, a second on some network file systems), so a file rewritten with the
// same size within one tick of a read keeps the stamp the read saw. As git does with its
// index, a stamp is trusted only when the file was last changed well before the read:
// a file changed within Margin of being read is read again next time, and compared by
// its content.
package filestamp

import (
	"io/fs"
	"time"
)

// Margin is how long before a read a file must have last changed for its stamp to be
// trusted: more than the coarsest clock of the file systems scenario files live on.
const Margin = 3 * time.Second

// Stamp is what stat says of a file that changes when the file is written.
type Stamp struct {
	size     int64
	modified time.Time
	changed  time.Time // the inode's change time where the system has one: touch cannot set it
	inode    uint64    // a file replaced by another (a rename over it) has another
}

// Of is the stamp of a file's FileInfo.
func Of(info fs.FileInfo) Stamp {
	s := Stamp{size: info.Size(), modified: info.ModTime()}
	s.changed, s.inode = systemStamp(info)
	return s
}

// Read is a file's stamp together with when its content was read.
type Read struct {
	Stamp Stamp
	At    time.Time
}

// Unchanged reports whether a file whose stamp is now was read as r and has not
// changed since: the stamps are equal and the file had settled when it was read. A
// file system that tells no modification time (an embedded one, a test's map) never
// says a file is unchanged.
func (r Read) Unchanged(now Stamp) bool {
	return now == r.Stamp && !r.At.IsZero() && !r.Stamp.modified.IsZero() && r.Stamp.latest().Before(r.At.Add(-Margin))
}

// latest is the later of the modification and change times.
func (s Stamp) latest() time.Time {
	if s.changed.After(s.modified) {
		return s.changed
	}
	return s.modified
}
