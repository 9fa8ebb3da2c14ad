package scenarios

import (
	"regexp"
	"strings"
	"unicode"
)

// How a streamed text is cut into the deltas a model would send.

// argsPieceRunes is how many characters of tool-call arguments one delta carries,
// about what model APIs stream.
const argsPieceRunes = 8

// splitArgs cuts tool-call argument text, which has no spaces to cut at, into short
// pieces; sentence mode is the same as word mode here.
func splitArgs(text, mode string) []string {
	if mode == "none" || text == "" {
		return splitText(text, "none")
	}
	var out []string
	runes := []rune(text)
	for len(runes) > argsPieceRunes {
		out = append(out, string(runes[:argsPieceRunes]))
		runes = runes[argsPieceRunes:]
	}
	return append(out, string(runes))
}

var sentenceEnd = regexp.MustCompile(`[.!?。！？]+\s+`)

// detachedAbove is the length of a text past which its deltas are copies rather than
// slices of it: whatever keeps a few of them (the journal's record of a run keeps its
// first events) must not keep the whole text alive, as when a template echoes an 8 MiB
// message. Shorter texts are sliced, which costs nothing.
const detachedAbove = 64 << 10

// splitText cuts text into the deltas a model would stream: words with their trailing
// space (the default), sentences, or the whole text at once. Empty text yields nothing,
// since clients before 0.0.51 reject empty deltas.
func splitText(text, mode string) []string {
	pieces := slicePieces(text, mode)
	if len(text) > detachedAbove && len(pieces) > 1 {
		for i, p := range pieces {
			pieces[i] = strings.Clone(p)
		}
	}
	return pieces
}

// slicePieces cuts text as splitText does, into slices of it.
func slicePieces(text, mode string) []string {
	if text == "" {
		return nil
	}
	switch mode {
	case "none":
		return []string{text}
	case "sentence":
		var out []string
		last := 0
		for _, loc := range sentenceEnd.FindAllStringIndex(text, -1) {
			out = append(out, text[last:loc[1]])
			last = loc[1]
		}
		if last < len(text) {
			out = append(out, text[last:])
		}
		return out
	}
	out := make([]string, 0, strings.Count(text, " ")+1) // a word after each space, mostly
	start := 0
	inSpace := false
	for i, r := range text {
		space := unicode.IsSpace(r)
		if inSpace && !space && i > 0 && strings.TrimSpace(text[start:i]) != "" {
			out = append(out, text[start:i])
			start = i
		}
		inSpace = space
	}
	return append(out, text[start:])
}
