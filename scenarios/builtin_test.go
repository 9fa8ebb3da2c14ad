package scenarios

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/agui-mock/agui-mock/protocol"
)

func TestBuiltinScenariosSendListsAndNumbers(t *testing.T) {
	set, err := Load(Builtin())
	if err != nil {
		t.Fatal(err)
	}
	args := func(body, tool string) map[string]any {
		t.Helper()
		text, name := "", ""
		for _, te := range planFor(t, set, request(t, "/agui/chat", body), PlanOptions{Timing: DefaultTiming()}).Events {
			switch te.Event.Type {
			case protocol.ToolCallStart:
				name = te.Event.Str("toolCallName")
			case protocol.ToolCallArgs:
				if name == tool {
					text += te.Event.Str("delta")
				}
			}
		}
		var out map[string]any
		if err := json.Unmarshal([]byte(text), &out); err != nil {
			t.Fatalf("%s arguments %q: %v", tool, text, err)
		}
		return out
	}
	attachments := []any{map[string]any{"url": " http://example.com/video-a.mp4"}, map[string]any{"fileId": "vod-file-001"}}
	part, _ := json.Marshal(map[string]any{"type": "mixcut_assets", "metadata": map[string]any{"attachments": attachments}})
	mixcut := `{"messages":[{"role":"user","content":[{"type":"text","text":"Help me mash up these assets"},` + string(part) + `]}]}`
	if got := args(mixcut, "create_mixcut")["attachments"]; !reflect.DeepEqual(got, attachments) {
		t.Errorf("create_mixcut gets attachments %#v, want the list of the mixcut_assets part", got)
	}
	noPart := `{"messages":[{"role":"user","content":"Help me mash up these assets"}]}`
	if got := args(noPart, "create_mixcut")["attachments"]; !reflect.DeepEqual(got, []any{}) {
		t.Errorf("without a mixcut_assets part create_mixcut gets attachments %#v, want an empty list", got)
	}
	trim := `{"messages":[{"role":"user","content":"Search for ocean wave videos and trim the first 10 seconds"}],"forwardedProps":{"scenario_name":"media_management"}}`
	if got := args(trim, "trim_video")["startSeconds"]; got != float64(10) {
		t.Errorf("trim_video gets startSeconds %#v, want the number 10", got)
	}
}
