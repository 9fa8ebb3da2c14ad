package scenarios

import (
	"fmt"
	"net/textproto"
	"reflect"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agui-mock/agui-mock/protocol"
)

// ownRecordings is a source of n scenarios as a recorded directory holds them: each
// matches one message exactly, and offers a tool of its own.
func ownRecordings(n int) Source {
	fsys := fstest.MapFS{}
	for i := range n {
		fsys[fmt.Sprintf("rec/r%04d.yaml", i)] = &fstest.MapFile{Data: fmt.Appendf(nil,
			"id: rec-%04d\nmatch: {message: '^Ask about topic %04d$', tools: [tool%04d]}\nsteps: [{text: recorded}]\n", i, i, i)}
	}
	return Source{FS: fsys, Root: "rec", Label: "rec"}
}

// linearMissedOwn is MissedOwn without a bound: every scenario of the developer's
// compared, in precedence order.
func linearMissedOwn(s *Set, req *Request) []Candidate {
	misses := []Candidate{}
	for _, sc := range s.scenarios {
		if !sc.fallback {
			_, reasons := sc.Match.test(req)
			misses = append(misses, Candidate{ID: sc.ID, Source: sc.Source.String(), Reasons: reasons})
		}
	}
	sort.SliceStable(misses, func(i, j int) bool { return len(misses[i].Reasons) < len(misses[j].Reasons) })
	return misses[:min(maxNearest, len(misses))]
}

// answeredBy selects the scenario a request plays, failing the test when none does.
func answeredBy(t *testing.T, set *Set, req *Request) *Scenario {
	t.Helper()
	sel, _ := set.Select(req)
	if sel == nil {
		t.Fatal("no scenario answers the request")
	}
	return sel.Scenario
}

// TestMissedOwnComparesEveryScenarioOfAFewBesideTheBuiltIns: with no more of the
// developer's scenarios than the bound, the nearest are those a comparison with every
// one of them finds, and a built-in scenario other than the catch-all is explained too.
func TestMissedOwnComparesEveryScenarioOfAFewBesideTheBuiltIns(t *testing.T) {
	set, err := Load(ownRecordings(10), Builtin())
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ body, builtin string }{
		{`{"messages":[{"role":"user","content":"Ask about topic 0007 please"}],"tools":[{"name":"tool0007"}]}`, CatchAllID},
		{`{"messages":[{"role":"user","content":"search for ocean wave videos"}],"tools":[{"name":"tool0003"}],"forwardedProps":{"scenario_name":"video-mixcut"}}`, "video-mixcut-search"},
	} {
		req := request(t, "/agui/chat", tt.body)
		answered := answeredBy(t, set, req)
		if answered.ID != tt.builtin {
			t.Fatalf("%s answered %s, want the built-in %s", tt.body, answered.ID, tt.builtin)
		}
		got := set.MissedOwn(req, answered)
		if want := linearMissedOwn(set, req); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: near misses\n%+v\nwant\n%+v", tt.body, got, want)
		}
		if len(got) == 0 || len(got[0].Reasons) != 1 {
			t.Errorf("%s: the nearest misses by one reason: %+v", tt.body, got)
		}
	}
}

// TestMissedOwnIsBoundedAmongThousands: among thousands of recordings, a run the
// catch-all answers is compared with at most maxExplainedOwn of them, and the one that
// shares the request's tool — far down the precedence order — is still found nearest.
func TestMissedOwnIsBoundedAmongThousands(t *testing.T) {
	set, err := Load(ownRecordings(2000), Builtin())
	if err != nil {
		t.Fatal(err)
	}
	req := request(t, "/agui/chat", `{"messages":[{"role":"user","content":"Ask about topic 1789, please"}],"tools":[{"name":"tool1789"}]}`)
	answered := answeredBy(t, set, req)
	if !answered.Default() {
		t.Fatalf("%s answered, want a built-in scenario", answered.ID)
	}
	if ranks := set.ownToExplain(req, 2000); len(ranks) != maxExplainedOwn {
		t.Errorf("compared with %d scenarios, want %d", len(ranks), maxExplainedOwn)
	}
	got := set.MissedOwn(req, answered)
	if len(got) != maxNearest || got[0].ID != "rec-1789" || len(got[0].Reasons) != 1 || !strings.Contains(got[0].Reasons[0], "Ask about topic 1789") {
		t.Errorf("near misses: %+v, want rec-1789 first, by its message alone", got)
	}
	if want := linearMissedOwn(set, req); got[0].ID != want[0].ID {
		t.Errorf("the bounded comparison finds %s nearest, every scenario compared %s", got[0].ID, want[0].ID)
	}
}

// TestMissedOwnSaysNothingWithoutAScenarioOfYours: a run one of the developer's
// scenarios answered, or a set of built-in scenarios alone, has no near misses.
func TestMissedOwnSaysNothingWithoutAScenarioOfYours(t *testing.T) {
	own, err := Load(ownRecordings(3), Builtin())
	if err != nil {
		t.Fatal(err)
	}
	req := request(t, "/agui/chat", `{"messages":[{"role":"user","content":"Ask about topic 0001"}],"tools":[{"name":"tool0001"}]}`)
	if answered := answeredBy(t, own, req); answered.ID != "rec-0001" || own.MissedOwn(req, answered) != nil {
		t.Errorf("%s answered, near misses %+v: want rec-0001 and none", answered.ID, own.MissedOwn(req, answered))
	}
	builtin, err := Load(Builtin())
	if err != nil {
		t.Fatal(err)
	}
	req = request(t, "/agui/chat", `{"messages":[{"role":"user","content":"zzz"}]}`)
	if got := builtin.MissedOwn(req, answeredBy(t, builtin, req)); got != nil {
		t.Errorf("the built-in set alone: near misses %+v", got)
	}
}

// BenchmarkMissedOwn measures the near misses of a run the catch-all answers among 10
// recordings, as many as the bound, and thousands: the bound keeps the last near the
// second.
func BenchmarkMissedOwn(b *testing.B) {
	for _, n := range []int{10, 64, 5000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			set, err := Load(ownRecordings(n), Builtin())
			if err != nil {
				b.Fatal(err)
			}
			in, err := protocol.DecodeRunAgentInput([]byte(`{"messages":[{"role":"user","content":"Ask about topic 0007, please"}]}`),
				protocol.DecodeOptions{NewID: func(k string) string { return k }})
			if err != nil {
				b.Fatal(err)
			}
			req := &Request{Route: "/agui/chat", Input: in, Header: textproto.MIMEHeader{}}
			sel, _ := set.Select(req)
			for b.Loop() {
				set.MissedOwn(req, sel.Scenario)
			}
		})
	}
}
