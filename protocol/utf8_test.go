package protocol

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestDecodeJSONRefusesInvalidUTF8NamingTheByte(t *testing.T) {
	_, err := DecodeJSON([]byte("{\"content\":\"fail \xff\xfe\"}"))
	var ie *InputError
	if !errors.As(err, &ie) || ie.Problem != "malformed JSON: invalid UTF-8 at byte 17 (0xff)" {
		t.Errorf("got %v", err)
	}
	if _, err := DecodeJSON([]byte(`{"content":"ünïcødé ✓ 🌊"}`)); err != nil {
		t.Errorf("valid UTF-8 refused: %v", err)
	}
}

func TestUTF8ReaderChecksCharactersSplitAcrossReads(t *testing.T) {
	tests := []struct {
		in   string
		want string // the error, or "" when the input is valid
	}{
		{`{"a":"ünïcødé ✓ 🌊"}`, ""},
		{"{\"a\":\"ok\xff\"}", "malformed JSON: invalid UTF-8 at byte 8 (0xff)"},
		{"{\"a\":\"\xc3\x28\"}", "malformed JSON: invalid UTF-8 at byte 6 (0xc3)"},
		{"{\"a\":\"🌊\xf0\x9f\"}", "malformed JSON: invalid UTF-8 at byte 10 (0xf0)"},
		{"\"\xf0\x9f", "malformed JSON: invalid UTF-8 at byte 1 (0xf0)"}, // cut off by the end
	}
	for _, tt := range tests {
		for name, r := range map[string]io.Reader{"whole": strings.NewReader(tt.in), "byte by byte": iotest.OneByteReader(strings.NewReader(tt.in))} {
			got, err := io.ReadAll(UTF8Reader(r))
			if tt.want == "" && (err != nil || string(got) != tt.in) {
				t.Errorf("%q %s: got %q, %v", tt.in, name, got, err)
			}
			if tt.want != "" && (err == nil || err.Error() != tt.want) {
				t.Errorf("%q %s: error %v, want %q", tt.in, name, err, tt.want)
			}
		}
	}
}
