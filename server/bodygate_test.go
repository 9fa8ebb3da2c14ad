package server

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/labstack/echo/v4"
)

// bodyContext is the context of a request whose body announces length bytes (-1:
// unknown).
func bodyContext(t *testing.T, length int64) echo.Context {
	t.Helper()
	req := httptest.NewRequestWithContext(t.Context(), http.MethodPost, "/agui/chat", strings.NewReader(""))
	req.ContentLength = length
	return echo.New().NewContext(req, httptest.NewRecorder())
}

// TestALargeBodyWaitsForRoom: large bodies take room until their requests are answered;
// the next waits until there is room, or past its wait is refused; small bodies never
// wait, one of unknown length counts as the limit, and one larger than the bound is
// handled alone.
func TestALargeBodyWaitsForRoom(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const mib = 1 << 20
		g := newBodyGate(10 * mib)
		first, second := bodyContext(t, 6*mib), bodyContext(t, 4*mib)
		for _, c := range []echo.Context{first, second} {
			if err := g.admit(c, 10*mib, time.Second); err != nil {
				t.Fatal(err)
			}
		}
		if err := g.admit(bodyContext(t, 1000), 10*mib, time.Second); err != nil {
			t.Errorf("a small body waited: %v", err)
		}
		waiting := bodyContext(t, -1) // counted as its limit
		admitted := make(chan error)
		go func() { admitted <- g.admit(waiting, 3*mib, time.Minute) }()
		synctest.Wait()
		select {
		case err := <-admitted:
			t.Fatalf("admitted with no room: %v", err)
		default:
		}
		g.release(second) // 4 MiB back: room for 3
		if err := <-admitted; err != nil {
			t.Fatal(err)
		}
		late := time.Now()
		if err := g.admit(bodyContext(t, 2*mib), 10*mib, 10*time.Second); !errors.Is(err, errNoRoom) || time.Since(late) != 10*time.Second {
			t.Errorf("past its wait: %v after %v", err, time.Since(late))
		}
		g.release(first)
		g.release(waiting)
		g.release(waiting) // given back once
		huge := bodyContext(t, 50*mib)
		if err := g.admit(huge, 64*mib, time.Second); err != nil {
			t.Errorf("a body larger than the bound, alone: %v", err)
		}
		if g.release(huge); g.used != 0 {
			t.Errorf("%d bytes still taken", g.used)
		}
	})
}

// TestABodyWithoutRoomIs503: a run whose large body finds no room while another large
// body's stream holds it gets 503 too_many_bodies with Retry-After, and the next run,
// once that stream has ended, is played.
func TestABodyWithoutRoomIs503(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, "steps: [{text: hi}, {pause: 1m}, {text: bye}]\n", func(c *Config) { c.BodiesMaxBytes = 1 << 20 })
		body := `{"threadId":"%s","messages":[{"role":"user","content":"` + strings.Repeat("x", 900<<10) + `"}]}`
		held := make(chan *streamRecorder)
		go func() { held <- post(t.Context(), s, "/agui/chat", strings.Replace(body, "%s", "one", 1), nil) }()
		synctest.Wait()
		refused := post(t.Context(), s, "/agui/chat", strings.Replace(body, "%s", "two", 1), nil)
		if refused.status != http.StatusServiceUnavailable || !strings.Contains(refused.body(), `"too_many_bodies"`) ||
			refused.Header().Get("Retry-After") != "1" || !strings.Contains(refused.body(), "--bodies-max-bytes") {
			t.Errorf("a body without room: %d %v %s", refused.status, refused.Header(), refused.body())
		}
		if first := <-held; first.status != http.StatusOK || !strings.Contains(first.body(), "bye") {
			t.Fatalf("the first run: %d %s", first.status, first.body())
		}
		if next := post(t.Context(), s, "/agui/chat", strings.Replace(body, "%s", "three", 1), nil); next.status != http.StatusOK {
			t.Errorf("the room was not given back: %d %s", next.status, next.body())
		}
	})
}
