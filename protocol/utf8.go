package protocol

import (
	"fmt"
	"unicode/utf8"
)

// invalidUTF8 is the problem of a JSON text with a byte that is not UTF-8 at offset:
// JSON is UTF-8 (RFC 8259), and decoding would silently replace the byte.
func invalidUTF8(offset int64, b byte) error {
	return &InputError{Problem: fmt.Sprintf("malformed JSON: invalid UTF-8 at byte %d (0x%02x)", offset, b)}
}

// CheckUTF8 fails, with an *InputError naming its offset, at the first byte of a JSON
// text that is not valid UTF-8.
func CheckUTF8(b []byte) error {
	if utf8.Valid(b) {
		return nil
	}
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return invalidUTF8(int64(i), b[i])
		}
		i += size
	}
	return nil
}
