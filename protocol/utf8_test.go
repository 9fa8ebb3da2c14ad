package protocol

import (
	"errors"
	"testing"
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

func TestCheckUTF8NamesTheFirstBadByte(t *testing.T) {
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
		err := CheckUTF8([]byte(tt.in))
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || err.Error() != tt.want) {
			t.Errorf("%q: error %v, want %q", tt.in, err, tt.want)
		}
	}
}
