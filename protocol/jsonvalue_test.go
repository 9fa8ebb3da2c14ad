package protocol

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzDecodeJSONFast: the fast decoder reads a body exactly when encoding/json does, and
// into the same value.
func FuzzDecodeJSONFast(f *testing.F) {
	for _, seed := range []string{
		`{"threadId":"t","runId":"r","messages":[{"id":"u","role":"user","content":"hi"}]}`,
		` {"a" : [1, -0, 2.5e+3, -1E-2, 0.0, true, false, null, {}, []], "b": {"c": "d"}} `,
		`{"a":"x\"y\\z\/\b\f\n\r\t\u00e9\u20AC\ud83c\udf0a"}`, `"\ud83c"`, `"\udf0a\ud83c"`, `"\ud83cx"`, `"\ud83c\u0041"`,
		`{"a":1,"a":2}`, `[1,2,]`, `{"a":1,}`, `{,}`, `01`, `-`, `1.`, `1e`, `.5`, `+1`, `1 2`, `{} {}`, `{}x`, `tru`, `truex`,
		`nul`, `"a` + "\n" + `b"`, `"\'"`, `"\x"`, `"\u12"`, `"\u12G4"`, ``, ` `, `{"a"}`, `{"a":}`, `{1:2}`, `[`, `]`, `"🌊"`,
		strings.Repeat("[", 10001) + strings.Repeat("]", 10001), strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
		`{"long":"` + strings.Repeat("x", sharedBodyMax) + `"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if !utf8.Valid(body) {
			return // DecodeJSON rejects it before either decoder
		}
		fast, ok := decodeJSONFast(body)
		std, err := decodeJSONStd(body)
		if ok != (err == nil) {
			t.Fatalf("%q: the fast decoder's ok is %v, encoding/json's error %v", body, ok, err)
		}
		if ok && !reflect.DeepEqual(fast, std) {
			t.Fatalf("%q: the fast decoder reads %#v, encoding/json %#v", body, fast, std)
		}
	})
}
