package scenarios

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"time"

	"github.com/brianvoe/gofakeit/v7"
)

// funcMap is the allow-list of functions templates can call. Fake data comes from the
// run's own seeded faker; id returns the run's fresh id for a local name.
func funcMap(f *gofakeit.Faker, id func(name string) string) template.FuncMap {
	return template.FuncMap{
		"id":       id,
		"json":     toJSON,
		"default":  func(def, v any) any { return defaultValue(def, v) },
		"upper":    strings.ToUpper,
		"lower":    strings.ToLower,
		"trim":     strings.TrimSpace,
		"join":     joinAny,
		"last":     lastItem,
		"nth":      nthItem,
		"kind":     kindOf,
		"int":      toInt,
		"float":    toFloat,
		"bool":     toBool,
		"fromJson": fromJSON,
		"now":      formatNow(time.Now),
		"fromNow":  after(time.Now),

		"Name": f.Name, "FirstName": f.FirstName, "LastName": f.LastName, "Email": f.Email,
		"Username": f.Username, "Phone": f.Phone, "City": f.City, "Country": f.Country,
		"Street": f.Street, "Company": f.Company, "JobTitle": f.JobTitle, "UUID": f.UUID,
		"Word": f.Word, "Noun": f.Noun, "Verb": f.Verb, "Adjective": f.Adjective,
		"Question": f.Question, "Quote": f.Quote, "HackerPhrase": f.HackerPhrase,
		"ProductName": f.ProductName, "URL": f.URL, "DomainName": f.DomainName,
		"IPv4Address": f.IPv4Address, "Emoji": f.Emoji, "Bool": f.Bool, "Color": f.Color,
		"Number": func(lo, hi int) int { return f.Number(min(lo, hi), max(lo, hi)) },
		"Price":  func(lo, hi float64) string { return fmt.Sprintf("%.2f", f.Price(lo, hi)) },
		"Date":   func() string { return f.Date().UTC().Format(time.RFC3339) },
		// Sentence and Paragraph take their sizes, capped, unlike gofakeit's own versions,
		// which ignore them.
		"Sentence": func(words ...int) string {
			if len(words) > 0 && words[0] > 0 {
				return f.LoremIpsumSentence(min(words[0], 500))
			}
			return f.Sentence()
		},
		"Paragraph": func(sentences ...int) string {
			n := 4
			if len(sentences) > 0 && sentences[0] > 0 {
				n = min(sentences[0], 50)
			}
			parts := make([]string, n)
			for i := range parts {
				parts[i] = f.Sentence()
			}
			return strings.Join(parts, " ")
		},
	}
}

// formatNow makes the now function: the time from returns, in RFC 3339.
func formatNow(from func() time.Time) func() string {
	return func() string { return from().UTC().Format(time.RFC3339) }
}

// after makes the fromNow function: the RFC 3339 time a Go duration such as 10m after
// the time from returns. A run counts from when the event is sent.
func after(from func() time.Time) func(d string) (string, error) {
	return func(d string) (string, error) {
		dur, err := time.ParseDuration(d)
		if err != nil {
			return "", fmt.Errorf("fromNow %q: not a duration such as 10m or 1m30s", d)
		}
		return from().Add(dur).UTC().Format(time.RFC3339Nano), nil
	}
}

// TemplateFuncs returns the names of the functions scenario templates may call.
func TemplateFuncs() []string {
	names := make([]string, 0, 40)
	for name := range funcMap(gofakeit.New(1), nil) {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// errNoValue is what a conversion function says when it is given a path the request
// lacks.
var errNoValue = errors.New("it was given no value, a path the request lacks (give the scenario an example that has it, or a fallback with default)")

// toInt is the template function int: the integer a string such as a capture spells,
// or an integral number.
func toInt(v any) (int, error) {
	switch x := v.(type) {
	case nil:
		return 0, errNoValue
	case int:
		return x, nil
	case string, json.Number:
		if i, err := strconv.Atoi(strings.TrimSpace(fmt.Sprint(x))); err == nil {
			return i, nil
		}
	}
	// 2.0 and 1e3 are integers too; beyond 2^53 a float64 no longer holds every one.
	if f, err := toFloat(v); err == nil && f == math.Trunc(f) && math.Abs(f) <= 1<<53 {
		return int(f), nil
	}
	return 0, fmt.Errorf("%s is not an integer", describe(v))
}

// toFloat is the template function float: the number a string spells, or a number.
func toFloat(v any) (float64, error) {
	switch x := v.(type) {
	case nil:
		return 0, errNoValue
	case float64:
		return x, nil
	case int:
		return float64(x), nil
	case string, json.Number:
		f, err := strconv.ParseFloat(strings.TrimSpace(fmt.Sprint(x)), 64)
		if err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return f, nil
		}
	}
	return 0, fmt.Errorf("%s is not a number", describe(v))
}

// toBool is the template function bool: true or false from a boolean or a string such
// as "true", "False", "1" or "0".
func toBool(v any) (bool, error) {
	switch x := v.(type) {
	case nil:
		return false, errNoValue
	case bool:
		return x, nil
	case string:
		if b, err := strconv.ParseBool(strings.ToLower(strings.TrimSpace(x))); err == nil {
			return b, nil
		}
	}
	return false, fmt.Errorf("%s is not true or false", describe(v))
}

// fromJSON is the template function fromJson: the value JSON text spells, numbers kept
// exact.
func fromJSON(v any) (any, error) {
	text, ok := v.(string)
	switch {
	case v == nil:
		return nil, errNoValue
	case !ok:
		return nil, fmt.Errorf("%s is not JSON text", describe(v))
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("the text is empty, not JSON")
		}
		return nil, fmt.Errorf("%s is not JSON: %s", describe(text), strings.TrimPrefix(err.Error(), "json: "))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s is not JSON: more follows the first value", describe(text))
	}
	return out, nil
}

// describe shows a value in an error message: strings quoted, anything else as JSON.
func describe(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(clip(s, 40))
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return clip(string(b), 40)
}

func toJSON(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

func defaultValue(def, v any) any {
	if v == nil || v == "" {
		return def
	}
	return v
}

// kindOf names the JSON type of a value: object, list, string, number, bool, or null
// for a value the request does not have, so templates can read request data of any
// shape without failing, e.g. {{ if eq (kind .metadata) "object" }}.
func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "bool"
	case json.Number:
		return "number"
	}
	switch reflect.ValueOf(v).Kind() {
	case reflect.Map, reflect.Struct:
		return "object"
	case reflect.Slice, reflect.Array:
		return "list"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8,
		reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "number"
	}
	return "null"
}

// lastItem returns a list's last element, e.g. {{ (last .messages).id }}.
func lastItem(items []any) any {
	if len(items) == 0 {
		return nil
	}
	return items[len(items)-1]
}

// nthItem returns a list's element at index i, counted from the end when i is negative
// (-1 is the last), or nothing when the list has no such element: {{ nth -2 .messages }}
// is the client's message before its last, which recordings use to replay the client's
// own messages inside a MESSAGES_SNAPSHOT.
func nthItem(i int, items []any) any {
	if i < 0 {
		i += len(items)
	}
	if i < 0 || i >= len(items) {
		return nil
	}
	return items[i]
}

// joinAny is the template function join; it refuses a result longer than
// maxRenderBytes.
func joinAny(sep string, items []any) (string, error) {
	parts := make([]string, len(items))
	size := len(sep) * len(items)
	for i, it := range items {
		parts[i] = fmt.Sprint(it)
		size += len(parts[i])
	}
	if err := checkJoinSize("join", size); err != nil {
		return "", err
	}
	return strings.Join(parts, sep), nil
}
