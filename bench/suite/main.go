// Command suite writes a suite of scenario files like the one a team's end-to-end tests
// grow into by recording, for bench/fixtures.sh to load, edit and select from. It is a
// measurement's input, not a test.
//
// Of the -n files, -recorded per cent (45 unless set) are as `agui-mock record` writes
// them: an anchored, quoted literal message pattern (^…$), forwardedProps.scenario_name
// for most, the recorded events with their delays and ids, and one example. The others
// are written by hand: an unanchored (?i) pattern with named captures, steps whose text
// and tool arguments use the captures, and one example. No example is matched by
// another scenario (a hand-written pattern ends with the file's own number, a recorded
// message is a phrase no other file has), so the set loads: the loader refuses an
// example that another scenario would win. The same -n, -seed and -recorded write the
// same files.
//
// Files are named by number (00000-…yaml), so they load in that order. The last file is
// always hand-written: with one criterion (its message) and the default priority, its
// scenario is the one agui-mock tries last. With -aimock, the equivalent fixtures of
// CopilotKit's aimock are written too, in the files' order, as a JSON list that
// e2e/bench/aimock-fixtures.mjs registers with AGUIMock: each a JavaScript pattern and
// its flags, the forwardedProps members a recording matches on, the message of the
// scenario's example, and the events agui-mock streams for it (the captures filled in,
// text cut into words as agui-mock cuts it); the last is also the one aimock tries last.
//
//	go run ./bench/suite -n 5000 -dir /tmp/suite -aimock /tmp/suite.json
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

func main() {
	n := flag.Int("n", 1000, "how many scenario files to write")
	dir := flag.String("dir", "", "the directory to write them in: created, or empty")
	seed := flag.Uint64("seed", 44, "the seed of the suite's choices")
	recorded := flag.Int("recorded", 45, "the percentage of recorded files")
	aimock := flag.String("aimock", "", "also write aimock's equivalent fixtures, a JSON list, to this file")
	flag.Parse()
	if *dir == "" || *n < 1 || *recorded < 0 || *recorded > 100 || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: suite -n N -dir DIR [-seed S] [-recorded PERCENT] [-aimock FILE]")
		os.Exit(2)
	}
	if err := run(*n, *dir, *seed, *recorded, *aimock); err != nil {
		fmt.Fprintln(os.Stderr, "suite:", err)
		os.Exit(1)
	}
}

func run(n int, dir string, seed uint64, recorded int, aimock string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if entries, err := os.ReadDir(dir); err != nil {
		return err
	} else if len(entries) > 0 {
		return fmt.Errorf("%s is not empty: its files would load with the suite's", dir)
	}
	suite := generate(n, seed, recorded)
	for _, f := range suite {
		if err := os.WriteFile(filepath.Join(dir, f.name), []byte(f.yaml), 0o644); err != nil {
			return err
		}
	}
	if aimock == "" {
		return nil
	}
	list := make([]aimockFixture, len(suite))
	for i, f := range suite {
		list[i] = f.aimock
	}
	data, err := json.Marshal(list)
	if err != nil {
		return err
	}
	return os.WriteFile(aimock, append(data, '\n'), 0o644)
}

// fixture is one file of the suite: its name, its YAML, and aimock's equivalent.
type fixture struct {
	name     string
	yaml     string
	recorded bool
	example  string // the message of its example
	aimock   aimockFixture
}

// aimockFixture is a fixture as e2e/bench/aimock-fixtures.mjs registers it with AGUIMock.
type aimockFixture struct {
	Pattern        string            `json:"pattern"` // a JavaScript regular expression
	Flags          string            `json:"flags"`
	ForwardedProps map[string]string `json:"forwardedProps,omitempty"` // members the request's must have
	Example        string            `json:"example"`                  // the message of the scenario's example
	Events         []map[string]any  `json:"events"`
}

// generate makes a suite of n files, recorded per cent of them recorded.
func generate(n int, seed uint64, recorded int) []fixture {
	rng := rand.New(rand.NewPCG(seed, 0x4a6f))
	width := max(5, len(strconv.Itoa(n-1)))
	isRecorded := make([]bool, n)
	for _, i := range rng.Perm(n - 1)[:min(n*recorded/100, n-1)] { // never the last
		isRecorded[i] = true
	}
	v := newVocabulary()
	combos := rng.Perm(len(v.requests) * len(v.subjects) * len(v.places))
	suite := make([]fixture, n)
	r := 0
	for i := range n {
		num := fmt.Sprintf("%0*d", width, i)
		if isRecorded[i] {
			suite[i] = v.recording(rng, num, combos[r%len(combos)], r/len(combos))
			r++
		} else {
			suite[i] = v.handWritten(rng, num)
		}
	}
	return suite
}

// vocabulary is what the suite's messages and answers are made of.
type vocabulary struct {
	requests []string // a recorded message: %[1]s a subject, %[2]s a place
	subjects []string
	places   []string
	apps     []string // forwardedProps.scenario_name of recordings
	flows    []flow
}

// flow is a kind of hand-written scenario.
type flow struct {
	slug, description string
	pattern           string            // unanchored, with named captures
	message           string            // its example: the captures' names in braces
	values            map[string]string // each capture's possible values, space-separated
	steps             []step
}

// step is a step of a hand-written scenario: a text, or a tool call with its result (a
// JSON object, its keys sorted as agui-mock writes them). Strings are templates that
// may use the captures.
type step struct {
	text   string
	tool   string
	args   [][2]string // name and value, in order
	result string
}

func newVocabulary() vocabulary {
	return vocabulary{
		requests: []string{
			"Search for %[1]s videos from %[2]s",
			"What's the weather like in %[2]s for the %[1]s trip?",
			"Find me a %[1]s place near %[2]s",
			"Summarize the %[1]s report for the %[2]s office",
			"Plan a %[1]s weekend in %[2]s",
			"Show my %[1]s orders shipped to %[2]s",
			"Can you compare %[1]s prices in %[2]s?",
			"Draft an email about the %[1]s meeting in %[2]s",
		},
		subjects: strings.Fields("ocean mountain budget family quarterly vegan electric vintage jazz coffee hiking museum startup wedding football sushi winter garden cycling theatre photography surfing skiing design chess"),
		places:   strings.Fields("Lisbon Berlin Oslo Kyoto Austin Nairobi Lima Porto Dublin Seoul Denver Hanoi Quito Zurich Perth Cairo Madrid Vienna Prague Havana Sydney Toronto Mumbai Bergen Tunis Krakow Seville Bogota Osaka Tallinn"),
		apps:     strings.Fields("video-mixcut travel shop reports mail"),
		flows: []flow{
			{
				slug: "book-a-trip", description: "Books a trip",
				pattern: `(?i)book a (?P<what>\w+) to (?P<city>\w+)`, message: "Book a {what} to {city}",
				values: map[string]string{"what": "flight train ferry bus cab", "city": "Lisbon Oslo Kyoto Lima Porto Seoul Quito Cairo"},
				steps: []step{
					{text: "Booking a {{ .captures.what }} to {{ .captures.city }} for you."},
					{tool: "book", args: [][2]string{{"what", "{{ .captures.what }}"}, {"city", "{{ .captures.city }}"}}, result: `{"confirmed":true}`},
					{text: "Your {{ .captures.what }} to {{ .captures.city }} is booked."},
				},
			},
			{
				slug: "weather", description: "Gives the forecast",
				pattern: `(?i)what(?:'s| is) the weather in (?P<city>\w+) on (?P<day>\w+)`, message: "What's the weather in {city} on {day}",
				values: map[string]string{"city": "Berlin Austin Dublin Denver Perth Madrid", "day": "Monday Tuesday Wednesday Thursday Friday Saturday Sunday"},
				steps: []step{
					{text: "Checking the forecast for {{ .captures.city }} on {{ .captures.day }}."},
					{tool: "forecast", args: [][2]string{{"city", "{{ .captures.city }}"}, {"day", "{{ .captures.day }}"}}, result: `{"high":21,"sky":"clear"}`},
					{text: "{{ .captures.day }} in {{ .captures.city }} looks clear, with a high of 21 degrees."},
				},
			},
			{
				slug: "orders", description: "Lists orders",
				pattern: `(?i)show (?:me )?(?P<n>\d+) (?P<status>\w+) orders`, message: "Show me {n} {status} orders",
				values: map[string]string{"n": "2 3 4 5 10", "status": "pending shipped returned open"},
				steps: []step{
					{tool: "list_orders", args: [][2]string{{"status", "{{ .captures.status }}"}, {"limit", "{{ .captures.n }}"}}, result: `{"orders":[]}`},
					{text: "Here are your {{ .captures.n }} most recent {{ .captures.status }} orders."},
				},
			},
			{
				slug: "cancel", description: "Cancels a subscription",
				pattern: `(?i)cancel (?:my |the )?(?P<plan>\w+) (?:subscription|plan)`, message: "Cancel my {plan} subscription",
				values: map[string]string{"plan": "premium family student basic"},
				steps: []step{
					{text: "I can cancel your {{ .captures.plan }} subscription."},
					{text: "Done: it ends with this billing period, and you keep {{ .captures.plan }} until then."},
				},
			},
			{
				slug: "summarize", description: "Summarizes a document",
				pattern: `(?i)summari[sz]e (?:the )?(?P<doc>[\w-]+) for (?P<who>\w+)`, message: "Summarize the {doc} for {who}",
				values: map[string]string{"doc": "q3-report roadmap postmortem contract", "who": "Dana Ravi Mei Omar Lena"},
				steps: []step{
					{text: "Summarizing {{ .captures.doc }} for {{ .captures.who }}."},
					{tool: "fetch_document", args: [][2]string{{"name", "{{ .captures.doc }}"}}, result: `{"pages":12}`},
					{text: "Here is the gist of {{ .captures.doc }}, {{ .captures.who }}: three decisions and two open questions."},
				},
			},
			{
				slug: "translate", description: "Translates a phrase",
				pattern: `(?i)translate "(?P<phrase>[^"]+)" (?:in)?to (?P<lang>\w+)`, message: `Translate "{phrase}" into {lang}`,
				values: map[string]string{"phrase": "hello|good morning|thank you|see you soon", "lang": "Spanish French German Japanese"},
				steps: []step{
					{text: "Translating \"{{ .captures.phrase }}\" into {{ .captures.lang }}."},
				},
			},
		},
	}
}

// recording is a recorded file: the message of combination combo of a request, a
// subject and a place (again the round'th time the combinations are all used).
func (v vocabulary) recording(rng *rand.Rand, num string, combo, round int) fixture {
	q, s := len(v.requests), len(v.subjects)
	subject, place := v.subjects[(combo/q)%s], v.places[combo/(q*s)]
	message := fmt.Sprintf(v.requests[combo%q], subject, place)
	if round > 0 {
		message += fmt.Sprintf(" (take %d)", round+1)
	}
	h := fnv.New32a()
	h.Write([]byte(message))
	stem := fmt.Sprintf("%s-%08x", slug(message), h.Sum32())
	pattern := "^" + regexp.QuoteMeta(message) + "$"
	var app string
	if rng.IntN(10) < 7 {
		app = v.apps[rng.IntN(len(v.apps))]
	}
	answer := fmt.Sprintf("Here is what I found about %s in %s: %d results, the best rated first.", subject, place, 3+rng.IntN(40))
	var events []event
	events = append(events, event{delay: 3 + rng.IntN(12), typ: "RUN_STARTED", fields: []field{{"threadId", ref(".threadId")}, {"runId", ref(".runId")}}})
	events = append(events, message1(rng, "m1", answer)...)
	if rng.IntN(10) < 6 {
		args, _ := json.Marshal(map[string]string{"query": subject, "place": place})
		events = append(events, event{delay: 50 + rng.IntN(250), typ: "TOOL_CALL_START", fields: []field{{"toolCallId", ref("c1")}, {"toolCallName", "search"}, {"parentMessageId", ref("m1")}}})
		for _, piece := range pieces(string(args)) {
			events = append(events, event{typ: "TOOL_CALL_ARGS", fields: []field{{"toolCallId", ref("c1")}, {"delta", piece}}})
		}
		events = append(events, event{typ: "TOOL_CALL_END", fields: []field{{"toolCallId", ref("c1")}}})
		events = append(events, event{delay: 100 + rng.IntN(500), typ: "TOOL_CALL_RESULT", fields: []field{{"messageId", ref("m2")}, {"toolCallId", ref("c1")}, {"content", fmt.Sprintf(`{"hits":%d}`, rng.IntN(50))}, {"role", "tool"}}})
		events = append(events, message1(rng, "m3", "Anything else I can look up?")...)
	}
	events = append(events, event{delay: 5 + rng.IntN(20), typ: "RUN_FINISHED", fields: []field{{"threadId", ref(".threadId")}, {"runId", ref(".runId")}}})

	var b strings.Builder
	fmt.Fprintf(&b, "# Recorded by agui-mock from http://localhost:9000 at 2026-11-%02dT%02d:%02d:%02dZ.\n", 1+rng.IntN(28), rng.IntN(24), rng.IntN(60), rng.IntN(60))
	b.WriteString("# It replays with the recorded timing; edit it freely (see docs/recording.md in agui-mock).\n")
	fmt.Fprintf(&b, "id: rec-%s\ndescription: Recorded from http://localhost:9000\nmatch:\n  message: %s\n", stem, quote(pattern))
	example := "{message: " + quote(message)
	if app != "" {
		fmt.Fprintf(&b, "  forwardedProps: {scenario_name: %s}\n", app)
		example += ", forwardedProps: {scenario_name: " + app + "}"
	}
	fmt.Fprintf(&b, "examples:\n  - %s}\nevents:\n", example)
	for _, e := range events {
		b.WriteString("  - " + e.yaml() + "\n")
	}
	f := fixture{name: num + "-" + stem + ".yaml", yaml: b.String(), recorded: true, example: message,
		aimock: aimockFixture{Pattern: pattern, Example: message, Events: jsonEvents(events)}}
	if app != "" {
		f.aimock.ForwardedProps = map[string]string{"scenario_name": app}
	}
	return f
}

// message1 is a recorded text message: its start after the agent thought, its words a
// few milliseconds apart, its end.
func message1(rng *rand.Rand, id, text string) []event {
	events := []event{{delay: 200 + rng.IntN(700), typ: "TEXT_MESSAGE_START", fields: []field{{"messageId", ref(id)}, {"role", "assistant"}}}}
	for _, w := range words(text) {
		events = append(events, event{delay: rng.IntN(40), typ: "TEXT_MESSAGE_CONTENT", fields: []field{{"messageId", ref(id)}, {"delta", w}}})
	}
	return append(events, event{typ: "TEXT_MESSAGE_END", fields: []field{{"messageId", ref(id)}}})
}

// handWritten is a hand-written file of one of the flows, its pattern and example ending
// with its number.
func (v vocabulary) handWritten(rng *rand.Rand, num string) fixture {
	fl := v.flows[rng.IntN(len(v.flows))]
	captures := map[string]string{}
	message := fl.message
	for _, name := range slices.Sorted(maps.Keys(fl.values)) {
		sep := " "
		if strings.Contains(fl.values[name], "|") {
			sep = "|"
		}
		choices := strings.Split(fl.values[name], sep)
		captures[name] = choices[rng.IntN(len(choices))]
		message = strings.ReplaceAll(message, "{"+name+"}", captures[name])
	}
	pattern := fl.pattern + " #" + num
	message += " #" + num
	fill := func(s string) string {
		for name, value := range captures {
			s = strings.ReplaceAll(s, "{{ .captures."+name+" }}", value)
		}
		return s
	}

	var b strings.Builder
	fmt.Fprintf(&b, "description: %s (%s)\nmatch:\n  message: %s\nexamples:\n  - message: %s\nsteps:\n", fl.description, num, quote(pattern), quote(message))
	events := []event{{typ: "RUN_STARTED", fields: []field{{"threadId", ref(".threadId")}, {"runId", ref(".runId")}}}}
	ids := 0
	next := func(prefix string) ref { ids++; return ref(fmt.Sprintf("%s%d", prefix, ids)) }
	var last ref
	for _, s := range fl.steps {
		if s.tool == "" {
			fmt.Fprintf(&b, "  - text: %s\n", quote(s.text))
			last = next("m")
			events = append(events, event{typ: "TEXT_MESSAGE_START", fields: []field{{"messageId", last}, {"role", "assistant"}}})
			for _, w := range words(fill(s.text)) {
				events = append(events, event{typ: "TEXT_MESSAGE_CONTENT", fields: []field{{"messageId", last}, {"delta", w}}})
			}
			events = append(events, event{typ: "TEXT_MESSAGE_END", fields: []field{{"messageId", last}}})
			continue
		}
		var yargs []string
		filled := map[string]string{}
		for _, a := range s.args {
			yargs = append(yargs, a[0]+": "+quote(a[1]))
			filled[a[0]] = fill(a[1])
		}
		args, _ := json.Marshal(filled) // its keys sorted, as agui-mock writes them
		fmt.Fprintf(&b, "  - tool: {name: %s, args: {%s}, result: %s}\n", s.tool, strings.Join(yargs, ", "), s.result)
		call := next("c")
		start := []field{{"toolCallId", call}, {"toolCallName", s.tool}}
		if last != "" {
			start = append(start, field{"parentMessageId", last})
		}
		events = append(events, event{typ: "TOOL_CALL_START", fields: start})
		for _, piece := range pieces(string(args)) {
			events = append(events, event{typ: "TOOL_CALL_ARGS", fields: []field{{"toolCallId", call}, {"delta", piece}}})
		}
		events = append(events,
			event{typ: "TOOL_CALL_END", fields: []field{{"toolCallId", call}}},
			event{typ: "TOOL_CALL_RESULT", fields: []field{{"messageId", next("m")}, {"toolCallId", call}, {"content", s.result}, {"role", "tool"}}})
	}
	events = append(events, event{typ: "RUN_FINISHED", fields: []field{{"threadId", ref(".threadId")}, {"runId", ref(".runId")}}})
	return fixture{name: num + "-" + fl.slug + ".yaml", yaml: b.String(), example: message,
		aimock: aimockFixture{
			Pattern: strings.ReplaceAll(strings.TrimPrefix(pattern, "(?i)"), "(?P<", "(?<"), Flags: "i",
			Example: message, Events: jsonEvents(events),
		}}
}

// event is an event of a run: how long after the one before it comes (milliseconds),
// its type and its fields in order.
type event struct {
	delay  int
	typ    string
	fields []field
}

// field is a field of an event: a string, or a ref.
type field struct {
	key   string
	value any
}

// ref is an id a recording writes as a template: the request's thread or run
// (".threadId", ".runId"), or a message or tool call ("m1", "c1") fresh in each run.
type ref string

// yaml writes the event as `agui-mock record` does: a flow mapping on one line, its
// delay left out when none.
func (e event) yaml() string {
	parts := []string{}
	if e.delay > 0 {
		parts = append(parts, fmt.Sprintf("delay: %d", e.delay))
	}
	parts = append(parts, "type: "+e.typ)
	for _, f := range e.fields {
		switch v := f.value.(type) {
		case ref:
			if strings.HasPrefix(string(v), ".") {
				parts = append(parts, fmt.Sprintf("%s: '{{ %s }}'", f.key, v))
			} else {
				parts = append(parts, fmt.Sprintf("%s: '{{ id `%s` }}'", f.key, v))
			}
		case string:
			parts = append(parts, f.key+": "+scalar(v))
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// jsonEvents are the events as aimock sends them: ids fixed, since it has no templates.
func jsonEvents(events []event) []map[string]any {
	out := make([]map[string]any, len(events))
	for i, e := range events {
		m := map[string]any{"type": e.typ}
		for _, f := range e.fields {
			switch v := f.value.(type) {
			case ref:
				m[f.key] = map[ref]string{".threadId": "thread-1", ".runId": "run-1"}[v]
				if m[f.key] == "" {
					m[f.key] = string(v)
				}
			default:
				m[f.key] = v
			}
		}
		out[i] = m
	}
	return out
}

// words cuts text as agui-mock streams a text step: each word with the spaces after it.
func words(text string) []string {
	var out []string
	start, inSpace := 0, false
	for i, r := range text {
		space := unicode.IsSpace(r)
		if inSpace && !space {
			out = append(out, text[start:i])
			start = i
		}
		inSpace = space
	}
	return append(out, text[start:])
}

// pieces cuts tool-call arguments as agui-mock streams them: 8 characters a delta.
func pieces(args string) []string {
	var out []string
	runes := []rune(args)
	for len(runes) > 8 {
		out = append(out, string(runes[:8]))
		runes = runes[8:]
	}
	return append(out, string(runes))
}

// quote writes s as a single-quoted YAML scalar.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// scalar writes s as YAML: plain when it is a name YAML reads as that string
// (assistant, search), else quoted.
func scalar(s string) string {
	plain := s != "" && unicode.IsLetter(rune(s[0])) && !strings.ContainsFunc(s, func(r rune) bool {
		return r > unicode.MaxASCII || !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-')
	})
	switch strings.ToLower(s) {
	case "true", "false", "null", "yes", "no", "on", "off", "y", "n":
		plain = false
	}
	if plain {
		return s
	}
	return quote(s)
}

// slug is a message's first words, lower-case and joined by hyphens, as the recorder
// names its files.
func slug(message string) string {
	var words []string
	for _, w := range strings.FieldsFunc(strings.ToLower(message), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len(words) == 6 {
			break
		}
		words = append(words, w)
	}
	if len(words) == 0 {
		return "run"
	}
	return strings.Join(words, "-")
}
