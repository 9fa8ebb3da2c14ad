package scenarios

import (
	"encoding/json"
	"regexp"
	"testing"
	"time"
)

// Each of a paused run's branches is answered in a way that takes it there, by the usual
// rules.
func TestBranchesAnswerEachBranch(t *testing.T) {
	tests := []struct {
		name, yaml, message string
		want                string // the branches' answers, as JSON
	}{
		{"an interrupt's cases, with the payload its schema takes", approvalScenario, "deploy",
			`[{"resume":[{"status":"resolved","payload":{"reason":""}},{"status":"resolved"}]},` +
				`{"resume":[{"status":"cancelled"},{"status":"resolved"}]},` +
				`{"resume":[{"status":"resolved","payload":{"reason":""}},{"status":"resolved","payload":{"channel":"ops"}}]}]`},
		{"a catch-all after a case of a boolean: the sample, false, reaches it", `
match: {message: approve}
steps:
  - interrupt:
      responseSchema: {type: object, properties: {approved: {type: boolean}}, required: [approved]}
      on:
        - {payload: {approved: true}, steps: [{text: Approved.}]}
        - {steps: [{text: Rejected.}]}
`, "approve", `[{"resume":[{"status":"resolved","payload":{"approved":false}}]},{"resume":[{"status":"resolved","payload":{"approved":true}}]}]`},
		{"a frontend tool's cases, by a text each pattern matches", `
match: {message: pick}
steps:
  - tool:
      name: pick
      args: {}
      on:
        - {content: '(?i)^(gif|webm)$', steps: [{text: A.}]}
        - {content: 'x{2,3}[0-9]+', steps: [{text: B.}]}
        - {steps: [{text: Other.}]}
`, "pick", `[{"results":[""]},{"results":["GIF"]},{"results":["xx0"]}]`},
		{"a recording's branches, by their recorded answers", `
match: {message: pick}
events:
  - {type: RUN_STARTED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}
  - {type: TOOL_CALL_START, toolCallId: c1, toolCallName: pick}
  - {type: TOOL_CALL_END, toolCallId: c1}
  - {type: RUN_FINISHED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}
next:
  - when: {toolResults: ['^GIF$']}
    events:
      - {type: RUN_STARTED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}
      - {type: RUN_FINISHED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}
  - when: {toolResults: ['^Web.+M$']}
    events:
      - {type: RUN_STARTED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}
      - {type: RUN_FINISHED, threadId: '{{ .threadId }}', runId: '{{ .runId }}'}
`, "pick", `[{"results":["GIF"]},{"results":["WebxM"]}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, err := loadOne(t, tt.yaml)
			if err != nil {
				t.Fatal(err)
			}
			body := `{"messages":[{"role":"user","content":"` + tt.message + `"}]}`
			plan := planFor(t, set, request(t, "/", body), PlanOptions{Timing: DefaultTiming(), Now: time.Unix(1000, 0)})
			got, _ := json.Marshal(plan.Next.Branches())
			if string(got) != tt.want {
				t.Errorf("branches\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestSampleMatch(t *testing.T) {
	for _, pattern := range []string{`^GIF$`, `(?i)yes|no`, `^a.+b$`, `\d{3}-[a-z]+`, `^$`, `colou?r`} {
		re := regexp.MustCompile(pattern)
		if got := sampleMatch(re); !re.MatchString(got) {
			t.Errorf("sampleMatch(%s) = %q, which it does not match", pattern, got)
		}
	}
	if got := sampleMatch(regexp.MustCompile(`\bx\B`)); got != "" {
		t.Errorf("an unsatisfiable sample: %q", got)
	}
}
