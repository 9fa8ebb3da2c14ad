package scenarios

import "embed"

//go:embed builtin/*.yaml
var builtinFiles embed.FS

// Builtin returns the scenario set embedded in the binary.
func Builtin() Source { return Source{FS: builtinFiles, Root: "builtin", Label: "builtin"} }
