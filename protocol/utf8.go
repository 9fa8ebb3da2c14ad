package protocol

import (
	"fmt"
	"io"
	"unicode/utf8"
)

// invalidUTF8 is the problem of a JSON text with a byte that is not UTF-8 at offset:
// JSON is UTF-8 (RFC 8259), and decoding would silently replace the byte.
func invalidUTF8(offset int64, b byte) error {
	return &InputError{Problem: fmt.Sprintf("malformed JSON: invalid UTF-8 at byte %d (0x%02x)", offset, b)}
}

// checkUTF8 fails at the first byte of b that is not valid UTF-8.
func checkUTF8(b []byte) error {
	if utf8.Valid(b) {
		return nil
	}
	bad, _ := scanUTF8(b, true)
	return invalidUTF8(int64(bad), b[bad])
}

// scanUTF8 returns the offset of the first byte of b that is not valid UTF-8, or -1.
// Unless final, a character cut off at the end of b is not invalid: rest is where it
// starts (len(b) when nothing is cut off), for the next piece to complete it.
func scanUTF8(b []byte, final bool) (bad, rest int) {
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		if !final && !utf8.FullRune(b[i:]) {
			return -1, i
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i, len(b)
		}
		i += size
	}
	return -1, len(b)
}

// UTF8Reader passes r's bytes through and fails, with an *InputError naming the
// offset, at the first that is not valid UTF-8, for JSON decoded as it streams in.
func UTF8Reader(r io.Reader) io.Reader { return &utf8Reader{r: r} }

type utf8Reader struct {
	r       io.Reader
	pending []byte // the start of a character the last read cut off
	offset  int64  // of pending's first byte
	err     error
}

func (u *utf8Reader) Read(p []byte) (int, error) {
	if u.err != nil {
		return 0, u.err
	}
	n, err := u.r.Read(p)
	data := append(u.pending, p[:n]...)
	bad, rest := scanUTF8(data, err != nil)
	if bad >= 0 {
		u.err = invalidUTF8(u.offset+int64(bad), data[bad])
		return 0, u.err
	}
	u.offset += int64(rest)
	u.pending = append(u.pending[:0], data[rest:]...)
	return n, err
}
