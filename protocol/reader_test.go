package protocol

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestFrameReader(t *testing.T) {
	stream := ": keep-alive\n\nid: A_1\ndata: {\"type\":\"A\"}\n\n" +
		"event: x\r\ndata: line1\r\ndata:line2\r\n\r\n" +
		"retry: 5\rdata: cr\r\r" +
		"data: last-without-blank-line"
	fr := NewFrameReader(strings.NewReader(stream), 1<<10)
	var got []Frame
	for {
		f, err := fr.Next()
		if err != nil {
			break
		}
		got = append(got, f)
	}
	want := []Frame{{ID: "A_1", Data: `{"type":"A"}`}, {Data: "line1\nline2"}, {Data: "cr"}, {Data: "last-without-blank-line"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

func TestFrameReaderLimitsFrameSize(t *testing.T) {
	fr := NewFrameReader(strings.NewReader("data: "+strings.Repeat("x", 100)+"\n\n"), 50)
	if _, err := fr.Next(); !errors.Is(err, ErrFrameTooLarge) {
		t.Errorf("got %v, want ErrFrameTooLarge", err)
	}
}

func TestReadEventsRejectsNonObjects(t *testing.T) {
	_, err := ReadEvents(strings.NewReader("data: {\"type\":\"RUN_STARTED\"}\n\ndata: 42\n\n"), 1<<10)
	if err == nil || !strings.Contains(err.Error(), "event 1") {
		t.Errorf("got %v", err)
	}
}
