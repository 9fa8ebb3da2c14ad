package loadtest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"
)

// userHZ is the unit of the CPU times of /proc/<pid>/stat: Linux reports them in clock
// ticks of 1/100 s to user space whatever the kernel's own tick.
const userHZ = 100

// CPUTime is the CPU a process has used so far, user and system time of all its
// threads, those that ended included, read from /proc/<pid>/stat.
func CPUTime(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("reading the CPU time of process %d: %w", pid, err)
	}
	return parseStat(data)
}

// parseStat reads utime and stime, the 14th and 15th fields of a /proc/<pid>/stat line.
// The command name, the second field, is in parentheses and may hold spaces and
// parentheses itself, so the fields are counted from its last ')'.
func parseStat(data []byte) (time.Duration, error) {
	end := bytes.LastIndexByte(data, ')')
	if end < 0 {
		return 0, errors.New("a /proc stat line without the command name's ')'")
	}
	fields := bytes.Fields(data[end+1:])
	const utime, stime = 14 - 3, 15 - 3 // the fields after ')' begin with the 3rd, state
	if len(fields) <= stime {
		return 0, fmt.Errorf("a /proc stat line of %d fields after the command name, not the %d it has at least", len(fields), stime+1)
	}
	var ticks int64
	for _, f := range [...][]byte{fields[utime], fields[stime]} {
		n, err := strconv.ParseInt(string(f), 10, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("a /proc stat line whose CPU time %q is not a count of ticks", f)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / userHZ, nil
}
