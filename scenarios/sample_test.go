package scenarios

import (
	"regexp"
	"strings"
	"testing"
)

// TestTemplateReadingItsOwnCaptureLoadsWithoutExample: the dry run of a scenario without
// an example sends a message its pattern matches, with the groups filled.
func TestTemplateReadingItsOwnCaptureLoadsWithoutExample(t *testing.T) {
	_, err := loadOne(t, `
match: {message: '(?i)forecast for (?P<n>\d+) days in (?P<city>[A-Z][a-z]+)'}
steps:
  - tool: {name: forecast, args: {days: "{{ int .captures.n }}", city: "{{ .captures.city }}"}}
  - text: "{{ .captures.city }} for {{ int .captures.n }} days"
`)
	if err != nil {
		t.Fatalf("the scenario does not load: %v", err)
	}
}

func TestSampleMessageMatchesWithEveryGroupFilled(t *testing.T) {
	for _, pattern := range []string{
		`(?P<n>\d+)`,
		`^order (?P<id>[A-Z]{2}-\d{3,})$`,
		`(?i)\bweather in (?P<city>\w+)\b`,
		`(?:book|reserve) (?P<seats>\d) seats?( for (?P<who>[^,.\n]+))?`,
		`(?s)^start.*(?P<tail>end|stop)\z`,
		`x{0,3}(?P<g>y*)z`,
		`[^a-z0-9](?P<any>.)`,
		`é+ (?P<u>\p{Greek}+)`,
	} {
		re := regexp.MustCompile(pattern)
		text, ok := sampleMessage(re)
		if !ok {
			t.Errorf("/%s/: no sample (got %q)", pattern, text)
			continue
		}
		found := re.FindStringSubmatch(text)
		for i, name := range re.SubexpNames() {
			if name != "" && name != "g" && found[i] == "" { // y* may be empty and still match
				t.Errorf("/%s/ sample %q leaves group %s empty", pattern, text, name)
			}
		}
	}
}

// TestNoSampleMessage: a pattern nothing matches, or one whose sample would be too long.
func TestNoSampleMessage(t *testing.T) {
	for _, pattern := range []string{`[^\x00-\x{10FFFF}]`, `a\bb`, strings.Repeat(`\w{1000}`, 5)} {
		if text, ok := sampleMessage(regexp.MustCompile(pattern)); ok {
			t.Errorf("/%s/: sample of %d bytes, want none", pattern, len(text))
		}
	}
}
