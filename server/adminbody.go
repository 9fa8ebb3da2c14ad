package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/agui-mock/agui-mock/protocol"
)

// decodeAdminBody reads an admin call's JSON body, exactly one object within the body
// size limit, into v, rejecting unknown members and anything after the object.
// Its errors name the member at fault in words, never in Go's terms.
func (s *Server) decodeAdminBody(c echo.Context, v any) error {
	if err := checkJSONContentType(c.Request()); err != nil {
		return err
	}
	body, err := s.readBody(c, s.cfg.MaxBodyBytes)
	if err != nil {
		return err
	}
	if msg, field := adminBodyProblem(body, v); msg != "" {
		return &httpError{status: http.StatusBadRequest, body: errorBody{Error: "invalid_input", Message: "invalid admin request: " + msg, Field: field}}
	}
	return nil
}

// adminBodyProblem decodes an admin body, exactly one JSON object, into v, and says
// what is wrong with it, if anything.
func adminBodyProblem(body []byte, v any) (msg, field string) {
	var bad *protocol.InputError
	if errors.As(protocol.CheckUTF8(body), &bad) {
		return bad.Problem, ""
	}
	// The value first, so that what follows it can be told from what is in it.
	dec := json.NewDecoder(bytes.NewReader(body))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return adminDecodeProblem(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return "unexpected data after the JSON value; send exactly one object", ""
	}
	if string(raw) == "null" {
		return "the body must be an object, got null", ""
	}
	strict := json.NewDecoder(bytes.NewReader(raw))
	strict.DisallowUnknownFields() // an unknown member is a typo to report
	if err := strict.Decode(v); err != nil {
		return adminDecodeProblem(err)
	}
	return "", ""
}

// missingMember is the answer to an admin body that lacks a member it needs.
func missingMember(field, what string) error {
	return &httpError{status: http.StatusBadRequest, body: errorBody{Error: "invalid_input",
		Message: "invalid admin request: " + field + " is required: " + what, Field: field}}
}

// adminDecodeProblem says what is wrong with an admin body, and which member, if one is
// to blame. Admin bodies are flat objects, so a member is named by its own key.
func adminDecodeProblem(err error) (msg, field string) {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te) && te.Field != "":
		field = te.Field[strings.LastIndexByte(te.Field, '.')+1:] // embedded structs add their Go names
		return fmt.Sprintf("%s must be %s, got %s", field, jsonTypeName(te.Type), jsonValueName(te.Value)), field
	case errors.As(err, &te):
		return fmt.Sprintf("the body must be %s, got %s", jsonTypeName(te.Type), jsonValueName(te.Value)), ""
	case errors.As(err, &se):
		return fmt.Sprintf("malformed JSON at byte %d: %s", se.Offset, strings.TrimPrefix(se.Error(), "json: ")), ""
	case errors.Is(err, io.EOF):
		return "the body is empty; send a JSON object", ""
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the JSON body ends too early", ""
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		field, _ = strconv.Unquote(name)
		return "unknown member " + name, field
	}
	return strings.TrimPrefix(err.Error(), "json: "), ""
}

// jsonTypeName names, in JSON's terms, what a Go type accepts.
func jsonTypeName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer of 0 or more"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "an object"
}

// jsonValueName names the kind of JSON value encoding/json reports ("object", "number
// 1.5", ...).
func jsonValueName(v string) string {
	switch {
	case v == "object" || v == "array":
		return "an " + v
	case v == "bool":
		return "true or false"
	case strings.HasPrefix(v, "number "):
		return "the number " + strings.TrimPrefix(v, "number ")
	}
	return "a " + v
}
