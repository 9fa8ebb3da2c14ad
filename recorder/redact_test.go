package recorder

import (
	"strings"
	"testing"

	"github.com/agui-mock/agui-mock/protocol"
)

func TestSecretKeyNames(t *testing.T) {
	secret := []string{
		"password", "Password", "newPassword", "password_hash", "db_passwd", "passphrase",
		"secret", "client_secret", "clientSecret", "webhookSecret", "CLIENT_SECRET",
		"token", "access_token", "accessToken", "refreshToken", "id_token", "x-auth-token", "sessionToken", "csrfToken",
		"cookie", "Cookie", "set-cookie", "Set-Cookie", "authorization", "Proxy-Authorization", "credentials", "credential",
		"api_key", "apiKey", "APIKey", "API_KEY", "apikey", "x-api-key", "X-Api-Key", "private_key", "privateKey", "secret-key", "ACCESS_KEY", "client_key", "subscriptionKey",
	}
	ordinary := []string{
		"key", "Key", "keys", "monkey", "keyboard", "key_id", "public_key", "publicKey", "primary_key", "foreign_key", "sort_key", "partition_key", "cache_key", "idempotencyKey", "state_key", "route_key",
		"tokens", "max_tokens", "maxTokens", "token_count", "tokenizer", "token_type", "secretary", "author", "auth_method",
		"messageId", "toolCallId", "threadId", "runId", "content", "delta", "name", "value", "type", "pwd",
	}
	for _, name := range secret {
		if !isSecretKey(name) {
			t.Errorf("%s is not taken for a secret", name)
		}
	}
	for _, name := range ordinary {
		if isSecretKey(name) {
			t.Errorf("%s is taken for a secret", name)
		}
	}
}

// TestDefaultRedactionsCatchCommonCredentials checks the built-in patterns against
// credentials in the formats of gitleaks' rules, and against ordinary text.
func TestDefaultRedactionsCatchCommonCredentials(t *testing.T) {
	credentials := map[string]string{
		"AWS access key":          "AKIAIOSFODNN7EXAMPLE",
		"AWS temporary key":       "ASIAY34FZKBOKMUTVV7A",
		"GitHub token":            "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",
		"GitHub OAuth token":      "gho_16C7e42F292c6912E7710c838347Ae178B4a",
		"GitHub fine-grained":     "github_pat_11ABCDEFG0aBcDeFgHiJkL_mNoPqRsTuVwXyZ0123456789aBcDeFgHiJkLmNoPqRsTuVwXyZ01234",
		"GitLab token":            "glpat-xxxxxxxxxxxxxxxxxxxx",
		"Google API key":          "AIzaSyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe",
		"Google OAuth token":      "ya29.a0AfH6SMBx1234567890abcdefghij",
		"Slack bot token":         "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
		"Slack user token":        "xoxp-123456789012-123456789012-123456789012-abcdef",
		"Slack webhook":           "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
		"Stripe secret key":       "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
		"Stripe restricted key":   "rk_test_4eC39HqLyjWDarjtT1zdp7dc",
		"OpenAI key":              "sk-proj-abcdefghijklmnopqrstuvwxyz012345",
		"Anthropic key":           "sk-ant-api03-abcdefghijklmnopqrstuvwxyz",
		"npm token":               "npm_abcdefghijklmnopqrstuvwxyz0123456789",
		"Hugging Face token":      "hf_abcdefghijklmnopqrstuvwxyzABCDEFGH",
		"JWT":                     "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
		"bearer token":            "Bearer abcdefgh12345678",
		"PEM private key":         "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo\n4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0\n-----END RSA PRIVATE KEY-----",
		"cut-off PEM private key": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ",
		"password assignment":     "password=hunter2",
		"client secret":           "client_secret: s3cr3t-value",
	}
	rd := redactor{patterns: DefaultRedactions()}
	for name, secret := range credentials {
		if got := rd.text("before " + secret + " after"); !strings.HasPrefix(got, "before ") || !strings.Contains(got, redacted) || strings.Contains(got, secret[len(secret)-8:]) {
			t.Errorf("%s: %q", name, got)
		}
	}
	for _, text := range []string{
		"the token budget is 5000 tokens", "a key of the piano", "AKIA is a prefix", "skip-the-line", "eye.eye.eye",
		"ghp_short", "public key: ssh-ed25519", "my password is safe with me", "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----",
	} {
		if got := rd.text(text); got != text {
			t.Errorf("ordinary text %q became %q", text, got)
		}
	}
}

func TestJSONIsRedactedByMemberNameAndStaysJSON(t *testing.T) {
	rd := redactor{patterns: DefaultRedactions()}
	in := `{"user": "ada", "password": "hunter2", "tokens": 12, "nested": {"apiKey": "k-1", "list": ["AKIAIOSFODNN7EXAMPLE", "ok"]},` +
		` "credentials": {"user": "bob", "pin": "1234", "n": 7}, "empty_secret": "", "note": "esc\"aped", "sort_key": "name"}`
	want := `{"user": "ada", "password": "[REDACTED]", "tokens": 12, "nested": {"apiKey": "[REDACTED]", "list": ["[REDACTED]", "ok"]},` +
		` "credentials": {"user": "[REDACTED]", "pin": "[REDACTED]", "n": 7}, "empty_secret": "", "note": "esc\"aped", "sort_key": "name"}`
	if got := rd.text(in); got != want || rd.count != 5 {
		t.Errorf("got %s (%d redactions)\nwant %s", got, rd.count, want)
	}
	if got := rd.text(`{"sessionToken": "cut off`); !strings.Contains(got, "cut off") {
		t.Errorf("text that is not JSON is redacted by pattern only: %s", got)
	}
}

func TestAStateDeltaIsRedactedByPath(t *testing.T) {
	rd := redactor{patterns: DefaultRedactions()}
	ev := rd.event(protocol.NewEvent(protocol.StateDelta, "delta", []any{
		map[string]any{"op": "add", "path": "/credentials/user", "value": "ada"},
		map[string]any{"op": "replace", "path": "/api~1key", "value": "k"},
		map[string]any{"op": "replace", "path": "/session/token", "value": map[string]any{"v": "t"}},
		map[string]any{"op": "replace", "path": "/max_tokens", "value": "4096"},
	}))
	ops, _ := ev.Get("delta")
	var got []any
	for _, op := range ops.([]any) {
		got = append(got, op.(map[string]any)["value"])
	}
	if got[0] != redacted || got[1] != redacted || got[2].(map[string]any)["v"] != redacted || got[3] != "4096" || rd.count != 3 {
		t.Errorf("values %v, %d redactions", got, rd.count)
	}
}
