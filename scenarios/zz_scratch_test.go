package scenarios

import (
	"fmt"
	"testing"
)

func TestZZScratch(t *testing.T) {
	cases := []string{
		"steps: [{text: hi}]\nresult: null\n",
		"steps: [{text: hi, tokensPerSecond: -5}]\n",
		"timing: {jitter: NaN, tokensPerSecond: NaN}\nsteps: [{text: hi}]\n",
		"base: &b {x: 1}\nsteps: [{text: hi}]\n",
		"steps:\n  - event:\n      <<: {a: 1}\n      type: CUSTOM\n      name: x\n      value: 1\n",
		"priority: 1.0\nsteps: [{text: hi}]\n",
		"examples: [{forwardedProps: [1]}]\nsteps: [{text: hi}]\n",
		"steps:\n  - step: {name: s, steps: [{text: a}, {error: boom}]}\n  - text: after\n",
		"steps:\n  - event: {type: RUN_ERROR, message: x}\n  - text: after\n",
		"id: null\nsteps: [{text: hi}]\n",
		"steps: [{text: null}]\n",
		"steps: [{text: {content: {a: 1}}}]\n",
		"steps: [{messages: [1, 2]}]\n",
		"steps: [{stateDelta: [{op: add, path: foo, value: 1}]}]\n",
		"steps: [{pause: 0}]\n",
		"steps: [{pause: \"-0s\"}]\n",
		"steps: [{pause: 1h30m}]\n",
		"steps: [{pause: \"250\"}]\n",
		"steps: [{pause: inf}]\n",
		"steps: [{tool: {name: x, parent: null}}]\n",
		"steps: [{activity: {type: A, content: {}, replace: 1}}]\n",
		"steps: [{custom: {name: 5}}]\n",
		"match: {route: []}\nsteps: [{text: hi}]\n",
		"match: {headers: {X-A: 5}}\nsteps: [{text: hi}]\n",
		"match: {headers: null}\nsteps: [{text: hi}]\n",
		"steps: []\n",
		"events: []\n",
		"steps: [{text: hi}]\nevents: null\n",
		"steps: [{event: {type: CUSTOM, delay: 5}}]\n",
		"---\n---\nsteps: [{text: hi}]\n",
		"steps: [{text: hi, chunk: null}]\n",
		"steps: [{state: {a: !!binary aGVsbG8=}}]\n",
		"steps: [{state: {a: 2001-12-14}}]\n",
		"steps: [{reasoning: {content: x, encryptedValue: {a: 1}}}]\n",
		"steps: [{error: {message: x, code: 5}}]\n",
		"steps: [{error: boom}, {error: again}]\n",
		"steps: [{text: {content: x, name: null}}]\n",
		"steps: [{raw: {event: null}}]\n",
		"steps: [{tool: {name: x, args: null}}]\n",
		"steps: [{state: {? [a] : 1}}]\n",
		"steps: [{text: {content: \"{{ .nope }}\"}}]\n",
		"match: {message: \"(\"}\nsteps: [{text: hi}]\n",
		"description: [a]\nsteps: [{text: hi}]\n",
	}
	for _, c := range cases {
		_, d := Parse("x.yaml", []byte(c))
		fmt.Printf("%q\n   -> %v\n", c, d)
	}
}
