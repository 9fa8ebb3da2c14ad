package secret

import "testing"

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
		if !IsName(name) {
			t.Errorf("%s is not taken for a secret", name)
		}
	}
	for _, name := range ordinary {
		if IsName(name) {
			t.Errorf("%s is taken for a secret", name)
		}
	}
}

// TestPatternsCatchCommonCredentials checks the patterns against
// credentials in the formats of gitleaks' rules, and against ordinary text.
func TestPatternsCatchCommonCredentials(t *testing.T) {
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
	for name, secret := range credentials {
		if !InText("before " + secret + " after") {
			t.Errorf("%s is not found: %q", name, secret)
		}
	}
	for _, text := range []string{
		"the token budget is 5000 tokens", "a key of the piano", "AKIA is a prefix", "skip-the-line", "eye.eye.eye",
		"ghp_short", "public key: ssh-ed25519", "my password is safe with me", "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----",
	} {
		if InText(text) {
			t.Errorf("ordinary text %q is taken for a credential", text)
		}
	}
}

func TestInHeader(t *testing.T) {
	for _, h := range [][2]string{
		{"Authorization", "Basic dXNlcjpwYXNz"}, {"X-Api-Key", "k"}, {"Cookie", "a=b"},
		{"X-Trace", "Bearer abcdefgh12345678"}, {"X-Custom", "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"},
	} {
		if !InHeader(h[0], h[1]) {
			t.Errorf("%s: %s is not taken for a credential", h[0], h[1])
		}
	}
	for _, h := range [][2]string{{"X-Tenant", "acme"}, {"User-Agent", "Mozilla/5.0"}, {"X-Request-Id", "r-1"}} {
		if InHeader(h[0], h[1]) {
			t.Errorf("%s: %s is taken for a credential", h[0], h[1])
		}
	}
}
