package server

import (
	"bytes"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agui-mock/agui-mock/scenarios"
)

// headerScenarios match on headers, so that a run that misses them is explained with
// the values the run sent.
const headerScenarios = `
id: tenant
match: {headers: {x-tenant: '^acme$'}}
steps: [{text: tenant}]
---
id: staging
match: {headers: {authorization: '^Bearer test-'}}
steps: [{text: staging}]
---
id: keyed
match: {headers: {x-api-key: '^k-'}}
steps: [{text: keyed}]
`

// TestNoCredentialOfARequestHeaderInAnyExplanation: a run sends real-looking
// credentials and a long header past scenarios that match on headers. Why they missed
// is told in the warning logged, the no_scenario answer, the journal's list and its
// entries (which the inspector shows) — with the credentials' lengths alone and the
// other value clipped; a run forced onto one of them keeps no value in its record.
func TestNoCredentialOfARequestHeaderInAnyExplanation(t *testing.T) {
	const token = "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"
	const apiKey = "k9-Zr8sT2uV4wX6yZ8aB0cD2eF4gH6iJ8kL0m"
	const tail = "THE-END-OF-A-LONG-VALUE"
	header := map[string]string{"Authorization": "Bearer " + token, "X-Api-Key": apiKey, "X-Tenant": strings.Repeat("t", 8<<10) + tail}
	for _, builtin := range []bool{false, true} {
		t.Run("built-in set "+strconv.FormatBool(builtin), func(t *testing.T) {
			var log bytes.Buffer
			own := scenarios.Source{FS: fstest.MapFS{"d/own.yaml": {Data: []byte(headerScenarios)}}, Root: "d", Label: "d"}
			s := newServer(t, "", func(c *Config) {
				c.Speed = 0
				c.Sources = []scenarios.Source{own}
				if builtin {
					c.Sources = append(c.Sources, scenarios.Builtin())
				}
				c.Logger = slog.New(slog.NewTextHandler(&log, nil))
			})
			if err := s.Reload(t.Context()); err != nil {
				t.Fatal(err)
			}
			missed := post(t.Context(), s, "/agui/chat", `{"threadId":"t1","runId":"r1","messages":[{"role":"user","content":"hi"}]}`, header)
			forcedHeader := map[string]string{ScenarioHeader: "staging"}
			for k, v := range header {
				forcedHeader[k] = v
			}
			forced := post(t.Context(), s, "/agui/chat", `{"threadId":"t2","runId":"r2","messages":[{"role":"user","content":"hi"}]}`, forcedHeader)
			if forced.status != http.StatusOK {
				t.Fatalf("the forced run: %d %s", forced.status, forced.body())
			}
			outputs := map[string]string{"the log": log.String(), "the answer": missed.body()}
			_, outputs["the journal"] = call(t, s, http.MethodGet, AdminPrefix+"/journal", "", nil)
			for _, e := range journaledEntries(t, s) {
				_, outputs["journal entry "+strconv.FormatInt(e.Seq, 10)] = call(t, s, http.MethodGet, AdminPrefix+"/journal/"+strconv.FormatInt(e.Seq, 10), "", nil)
			}
			for where, out := range outputs {
				for _, secret := range []string{token, token[:20], apiKey[:12], tail, strings.Repeat("t", 200)} {
					if strings.Contains(out, secret) {
						t.Errorf("%s shows %q:\n%.2000s", where, secret, out)
					}
				}
			}
			for where, want := range map[string]string{
				"the log":         "header authorization (47 bytes, not shown: it holds a credential) does not match /^Bearer test-/",
				"journal entry 2": `header authorization (47 bytes, not shown: it holds a credential) does not match /^Bearer test-/`,
			} {
				if !strings.Contains(outputs[where], want) {
					t.Errorf("%s does not say %q:\n%.3000s", where, want, outputs[where])
				}
			}
			if !strings.Contains(outputs["the log"], `header x-api-key (37 bytes, not shown`) || !strings.Contains(outputs["the log"], `header x-tenant \"`+strings.Repeat("t", 80)+`…\" does not match`) {
				t.Errorf("the log does not show the key's length and the clipped tenant:\n%.3000s", outputs["the log"])
			}
		})
	}
}

// TestNoScenarioNamesNoScenarioWhenAnAdminTokenHidesThem: with an admin token, whoever
// may run cannot list the scenarios, so a run that none matches is not told their files
// and patterns either; the journal, behind the token, and the log still are.
func TestNoScenarioNamesNoScenarioWhenAnAdminTokenHidesThem(t *testing.T) {
	for _, token := range []string{"", "admin-secret"} {
		t.Run("admin token "+strconv.Quote(token), func(t *testing.T) {
			var log bytes.Buffer
			s := newServer(t, headerScenarios, func(c *Config) {
				c.AdminToken = token
				c.Logger = slog.New(slog.NewTextHandler(&log, nil))
			})
			missed := post(t.Context(), s, "/agui/chat", `{"threadId":"t1","messages":[]}`, nil)
			if missed.status != http.StatusNotFound || !strings.Contains(missed.body(), `"no_scenario"`) {
				t.Fatalf("%d %s", missed.status, missed.body())
			}
			if named := strings.Contains(missed.body(), "d/test.yaml"); named != (token == "") {
				t.Errorf("the answer names the scenarios' files: %v, want %v: %s", named, token == "", missed.body())
			}
			_, journal := call(t, s, http.MethodGet, AdminPrefix+"/journal", "", map[string]string{"Authorization": "Bearer " + token})
			for where, out := range map[string]string{"the journal": journal, "the log": log.String()} {
				if !strings.Contains(out, "d/test.yaml") || !strings.Contains(out, "x-tenant") {
					t.Errorf("%s does not name the nearest scenarios: %.2000s", where, out)
				}
			}
		})
	}
}
