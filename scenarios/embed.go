package scenarios

import "embed"

//go:embed builtin/*.yaml
var builtinFiles embed.FS

//go:embed scenario.schema.json
var schema []byte

// Schema returns the JSON Schema of a scenario document, for editors.
func Schema() []byte { return schema }

// CatchAllID is the id of the built-in scenario that answers any request no other
// scenario matches.
const CatchAllID = "catch-all"

// Builtin returns the scenario set embedded in the binary. Scenarios of other sources
// override its scenarios of the same id.
func Builtin() Source {
	return Source{FS: builtinFiles, Root: "builtin", Label: "builtin", Fallback: true}
}
