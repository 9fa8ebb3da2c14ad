//go:build !unix

package cmd

// descriptorLimit returns false: the platform (Windows, WebAssembly) has no limit of
// open files that a process reads as Unix does, so -max-streams keeps its default.
func descriptorLimit() (uint64, bool) { return 0, false }
