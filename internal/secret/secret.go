// Package secret says what counts as a credential, for everything the mock writes or
// shows: the names of members and headers that hold one, and the formats of common
// providers' tokens. The recorder scrubs what these rules find from recordings; the
// explanations of near misses never quote a value they find.
package secret

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// patterns are compiled once: a regexp is safe for concurrent use.
var patterns = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{8,}`),
	regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{16,}`),                                                // OpenAI, Anthropic
	regexp.MustCompile(`\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b`),                    // AWS access key ids
	regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{30,}`),                                           // GitHub tokens
	regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{22,}`),                                         // GitHub fine-grained tokens
	regexp.MustCompile(`\bglpat-[A-Za-z0-9_-]{20,}`),                                             // GitLab
	regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`),                                                // Google API keys
	regexp.MustCompile(`\bya29\.[0-9A-Za-z_-]{20,}`),                                             // Google OAuth access tokens
	regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}`),                                        // Slack tokens
	regexp.MustCompile(`hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{20,}`), // Slack webhooks
	regexp.MustCompile(`\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}`),                             // Stripe
	regexp.MustCompile(`\bnpm_[A-Za-z0-9]{36}\b`),                                                // npm
	regexp.MustCompile(`\bhf_[A-Za-z0-9]{30,}`),                                                  // Hugging Face
	regexp.MustCompile(`\bey[A-Za-z0-9_-]{8,}\.ey[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*`),             // JSON Web Tokens
	regexp.MustCompile(`-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----|$)`),
	regexp.MustCompile(`(?i)\b[a-z0-9_-]*?(api[_-]?key|secret|password|passwd|passphrase|access[_-]?token|auth[_-]?token|private[_-]?key)(["']?\s*[:=]\s*["']?)[^"'\s,;}&]+`),
}

// Patterns are the formats of credentials that are scrubbed wherever they appear:
// bearer tokens, the credentials of common providers, JSON Web Tokens, PEM private keys
// and key/secret/password/token assignments. The slice is the caller's to extend.
func Patterns() []*regexp.Regexp { return slices.Clone(patterns) }

// InText reports whether s holds a credential in one of the formats of Patterns.
func InText(s string) bool {
	return slices.ContainsFunc(patterns, func(re *regexp.Regexp) bool { return re.MatchString(s) })
}

// IsName reports whether a JSON member or a header of this name holds a secret. Case,
// and the separators _, - and . are ignored: a name that contains password, passwd or
// passphrase; one that ends with secret, token, cookie, authorization or credential(s);
// and one whose last word is key after a word that makes it a credential (api_key,
// apiKey, x-api-key, private_key, secretKey, ACCESS_KEY, client_key…), or that is apikey.
// Other names (key, sort_key, state_key, public_key…) are ordinary ones.
func IsName(name string) bool {
	words := splitWords(name)
	compact := strings.Join(words, "")
	for _, w := range []string{"password", "passwd", "passphrase"} {
		if strings.Contains(compact, w) {
			return true
		}
	}
	for _, end := range []string{"secret", "token", "cookie", "authorization", "credential", "credentials"} {
		if strings.HasSuffix(compact, end) {
			return true
		}
	}
	if compact == "apikey" {
		return true
	}
	n := len(words)
	return n >= 2 && words[n-1] == "key" && slices.Contains(credentialKeys(), words[n-2])
}

// credentialKeys are the words that make a key named <word>_key a credential.
func credentialKeys() []string {
	return []string{"api", "secret", "private", "access", "auth", "client", "signing", "encryption", "master",
		"license", "service", "account", "app", "webhook", "session", "ssh", "deploy", "consumer", "admin", "subscription"}
}

// splitWords splits a name into its words, lower-cased: at separators and where its
// case changes (apiKey, APIKey and API_KEY are api, key).
func splitWords(name string) []string {
	var words []string
	var word []rune
	runes := []rune(name)
	flush := func() {
		if len(word) > 0 {
			words = append(words, strings.ToLower(string(word)))
			word = word[:0]
		}
	}
	for i, r := range runes {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			continue
		}
		if unicode.IsUpper(r) && i > 0 {
			prev := runes[i-1]
			nextLower := i+1 < len(runes) && unicode.IsLower(runes[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				flush()
			}
		}
		word = append(word, r)
	}
	flush()
	return words
}

// InHeader reports whether a header holds a credential: by its name, or by what its
// value starts with. Only the value's first kilobyte is searched, which is more than
// any explanation quotes of it, so that a long value costs no more than a short one.
func InHeader(name, value string) bool {
	return IsName(name) || InText(value[:min(len(value), 1<<10)])
}
