package server

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// withoutClientMethod are the admin endpoints the typed admin client (clients/client)
// leaves out, each with the reason: what a test sets up, reads or forgets is in it.
var withoutClientMethod = map[string]string{
	"GET /healthz":        "a probe of the process, for orchestrators",
	"GET /readyz":         "a probe of the process, for orchestrators",
	"GET /status":         "the server's load status, for people and the inspector",
	"GET /schema":         "the scenario schema, for editors",
	"GET /scenarios":      "the inspector's list of scenarios",
	"POST /reload":        "the operator's reload, which every test would share",
	"GET /journal/stream": "the inspector's live feed",
	"GET /journal/:x":     "the inspector's run detail",
	"DELETE /journal":     "forgotten with the rest of the test's state by reset",
	"GET /ui":             "the inspector's page",
	"GET /ui/:x":          "the inspector page's assets",
}

// TestEveryAdminEndpointIsDocumentedAndInTheClient checks that every admin endpoint
// has its row in the admin API table of docs/e2e-testing.md (and the table no other),
// and a call in the typed admin client unless withoutClientMethod says why not.
func TestEveryAdminEndpointIsDocumentedAndInTheClient(t *testing.T) {
	read := func(file string) string {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	doc, client := read("../docs/e2e-testing.md"), read("../clients/client/src/index.ts")
	param := regexp.MustCompile(`:[a-z]+|\$\{[^}]*\}`)
	called := map[string]bool{}
	for _, m := range regexp.MustCompile("call\\(\"([A-Z]+)\", [\"`]([^\"`?]+)").FindAllStringSubmatch(client, -1) {
		called[m[1]+" "+param.ReplaceAllString(m[2], ":x")] = true
	}
	if len(called) < 10 {
		t.Fatalf("clients/client/src/index.ts calls %d endpoints: has the way it calls them changed?", len(called))
	}
	s := newServer(t, "", func(*Config) {})
	served := map[string]bool{}
	for _, ep := range s.adminEndpoints() {
		served[ep.method+" "+ep.path] = true
		row := "\n| `" + ep.method + " " + AdminPrefix + ep.path
		if !strings.Contains(doc, row+"`") && !strings.Contains(doc, row+"?") {
			t.Errorf("docs/e2e-testing.md: the admin API table has no row for %s %s%s", ep.method, AdminPrefix, ep.path)
		}
		key := ep.method + " " + param.ReplaceAllString(ep.path, ":x")
		if _, without := withoutClientMethod[key]; !called[key] && !without {
			t.Errorf("clients/client/src/index.ts has no call of %s %s%s (or say in withoutClientMethod why not)", ep.method, AdminPrefix, ep.path)
		}
	}
	for _, m := range regexp.MustCompile("\n\\| `([A-Z]+) "+AdminPrefix+"([^`?]*)").FindAllStringSubmatch(doc, -1) {
		if !served[m[1]+" "+m[2]] {
			t.Errorf("docs/e2e-testing.md: the admin API table has a row for %s %s%s, which the server does not answer", m[1], AdminPrefix, m[2])
		}
	}
}
