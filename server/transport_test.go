package server

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agui-mock/agui-mock/internal/prototest"
	"github.com/agui-mock/agui-mock/protocol"
)

// playOver posts a run at speed 0 with the given headers and reads its events in the
// transport its Content-Type names, which it returns too.
func playOver(t *testing.T, url, body string, header map[string]string) (string, []protocol.Event) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(SpeedHeader, "0")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	ct := resp.Header.Get("Content-Type")
	r := protocol.NewEventReader(ct, resp.Body, 1<<20)
	var events []protocol.Event
	for {
		ev, err := r.Next()
		if err == io.EOF {
			return ct, events
		}
		if err != nil {
			t.Fatalf("event %d: %v", len(events), err)
		}
		events = append(events, ev)
	}
}

// Every example of every built-in scenario plays the same events over protobuf as over
// SSE, for a 1.1 client and for a 0.0.x one.
func TestBuiltinScenariosPlayTheSameOverProtobuf(t *testing.T) {
	fixed := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s := newServer(t, "", func(c *Config) { c.Seed = 7; c.FixedTime = fixed })
	ts := startHTTP(t, s)
	played := 0
	for _, sc := range s.Scenarios().Scenarios() {
		for i, ex := range sc.Examples {
			for _, version := range []string{"1.1", ""} {
				route, body := exampleRun(ex, "t", version)
				name := fmt.Sprintf("%s/example %d/client %q", sc.ID, i, version)
				_, overSSE := playOver(t, ts.URL+route, body, map[string]string{TestIDHeader: name + "/sse"})
				ct, overProto := playOver(t, ts.URL+route, body, map[string]string{TestIDHeader: name + "/proto", "Accept": protocol.ProtoContentType})
				if ct != protocol.ProtoContentType {
					t.Fatalf("%s: Content-Type %q, want %q", name, ct, protocol.ProtoContentType)
				}
				played++
				if len(overProto) != len(overSSE) {
					t.Fatalf("%s: %d events over protobuf, %d over SSE:\n%v\n%v", name, len(overProto), len(overSSE), types(overProto), types(overSSE))
				}
				for j := range overSSE {
					want := overSSE[j].Map()
					if got := prototest.WithoutAddedZeros(overProto[j].Map(), want); !reflect.DeepEqual(got, want) {
						t.Errorf("%s: event %d\n over protobuf %v\n      over SSE %v", name, j, got, want)
					}
				}
			}
		}
	}
	if played < 20 {
		t.Errorf("only %d runs compared", played)
	}
}

func TestTheTransportHeaderOverridesAccept(t *testing.T) {
	s := newServer(t, "", nil)
	ts := startHTTP(t, s)
	body := `{"messages":[{"role":"user","content":"hi"}]}`
	for _, tt := range []struct {
		header map[string]string
		want   string
	}{
		{map[string]string{"Accept": "text/event-stream"}, protocol.SSEContentType},
		{map[string]string{"Accept": "text/event-stream, " + protocol.ProtoContentType}, protocol.ProtoContentType},
		{map[string]string{"Accept": protocol.ProtoContentType + ";q=0, text/event-stream"}, protocol.SSEContentType},
		{map[string]string{"Accept": protocol.ProtoContentType, TransportHeader: "sse"}, protocol.SSEContentType},
		{map[string]string{TransportHeader: "proto"}, protocol.ProtoContentType},
	} {
		ct, events := playOver(t, ts.URL+"/agui/chat", body, tt.header)
		if ct != tt.want || len(events) < 2 || events[len(events)-1].Type != protocol.RunFinished {
			t.Errorf("%v: %s with %v, want %s", tt.header, ct, types(events), tt.want)
		}
	}
	code, answer := call(t, s, "POST", "/agui/chat", body, map[string]string{"Content-Type": "application/json", TransportHeader: "grpc"})
	if code != http.StatusBadRequest || !strings.Contains(answer, `"invalid_header"`) || !strings.Contains(answer, `X-Agui-Mock-Transport must be proto or sse, got \"grpc\"`) {
		t.Errorf("a bad transport: %d %s", code, answer)
	}
}

// protoEvents reads a recorded protobuf stream up to its end or its first error.
func protoEvents(rec *streamRecorder) ([]protocol.Event, error) {
	r := protocol.NewEventReader(rec.header.Get("Content-Type"), strings.NewReader(rec.body()), 1<<20)
	var events []protocol.Event
	for {
		ev, err := r.Next()
		if err == io.EOF {
			return events, nil
		}
		if err != nil {
			return events, err
		}
		events = append(events, ev)
	}
}

// The faults break a protobuf stream in its own terms: a malformed frame that does not
// decode, frames split across writes that still read whole, a truncated stream that ends
// between frames without a terminal event.
func TestFaultsOverProtobuf(t *testing.T) {
	s := newServer(t, "", func(c *Config) { c.Speed = 0 })
	body := `{"messages":[{"role":"user","content":"hi"}]}`
	proto := map[string]string{TransportHeader: "proto"}
	with := func(fault string) map[string]string {
		return map[string]string{TransportHeader: "proto", FaultHeader: fault}
	}

	whole, err := protoEvents(post(t.Context(), s, "/agui/chat", body, proto))
	if err != nil || len(whole) < 4 {
		t.Fatalf("a plain run: %v, %v", types(whole), err)
	}
	if events, err := protoEvents(post(t.Context(), s, "/agui/chat", body, with("malformed; after=2"))); len(events) != 2 || err == nil || !strings.Contains(err.Error(), "invalid protobuf Event") {
		t.Errorf("malformed: %v, %v; want 2 events and an invalid frame", types(events), err)
	}
	rec := post(t.Context(), s, "/agui/chat", body, with("split"))
	if events, err := protoEvents(rec); err != nil || len(events) != len(whole) || len(rec.writes) < len(rec.body())/5 {
		t.Errorf("split: %v, %v in %d writes of %d bytes", types(events), err, len(rec.writes), len(rec.body()))
	}
	if events, err := protoEvents(post(t.Context(), s, "/agui/chat", body, with("truncate; after=3"))); err != nil || len(events) != 3 {
		t.Errorf("truncate: %v, %v; want 3 whole events", types(events), err)
	}
}

// A protobuf stream has no keep-alive frame: during a long wait it sends nothing.
func TestAProtobufStreamSendsNothingWhileItWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, timedScenario, func(c *Config) { c.KeepAlive = 5 * time.Second })
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		defer cancel()
		rec := post(ctx, s, "/", `{"messages":[]}`, map[string]string{TransportHeader: "proto", FaultHeader: "stall; after=2; keepAlive"})
		events, err := protoEvents(rec)
		if err != nil || len(events) != 2 {
			t.Errorf("a stalled protobuf stream: %v, %v; want 2 events", types(events), err)
		}
		for _, w := range rec.writes {
			if w.at > 2*time.Second { // the two events are due at 100 ms and 1.1 s
				t.Errorf("%d bytes written at %v, while the stream stalled", len(w.data), w.at)
			}
		}
	})
}
