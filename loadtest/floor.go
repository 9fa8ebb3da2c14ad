package loadtest

import (
	"io"
	"net/http"
	"strconv"
	"time"
)

// Floor is the least an SSE server can do: a prebuilt run of Events frames with Gap
// between them, scheduled against the run's start, written and flushed on net/http. The
// comparison measures agui-mock against it.
type Floor struct {
	Events int
	Gap    time.Duration
}

// ServeHTTP streams the prebuilt run, echoing nothing from the request.
func (f Floor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	frames := make([][]byte, f.Events)
	frames[0] = []byte(`data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}` + "\n\n")
	for i := 1; i < f.Events-1; i++ {
		frames[i] = []byte(`data: {"type":"CUSTOM","name":"tick","value":` + strconv.Itoa(i) + "}\n\n")
	}
	frames[f.Events-1] = []byte(`data: {"type":"RUN_FINISHED","threadId":"t","runId":"r"}` + "\n\n")
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	start := time.Now()
	for i, frame := range frames {
		if wait := time.Until(start.Add(time.Duration(i) * f.Gap)); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-r.Context().Done():
				t.Stop()
				return
			case <-t.C:
			}
		}
		if _, err := w.Write(frame); err != nil {
			return
		}
		_ = rc.Flush()
	}
}
