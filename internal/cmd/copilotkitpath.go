package cmd

import (
	"strings"

	"github.com/agui-mock/agui-mock/scenarios"
	"github.com/agui-mock/agui-mock/server"
)

// runtimePath is the base path -copilotkit-path names: "" for off, else the path
// without a trailing slash.
func runtimePath(flag string) string {
	if flag == "off" {
		return ""
	}
	return strings.TrimSuffix(flag, "/")
}

// validRuntimePath reports whether -copilotkit-path names a base path the runtime's
// routes can live under: off, or an absolute path of plain segments that is not the
// root, the admin API's, or a run route of the AG-UI API.
func validRuntimePath(flag string) bool {
	if flag == "off" {
		return true
	}
	p := runtimePath(flag)
	if !strings.HasPrefix(p, "/") || p == "" || strings.ContainsAny(p, "*:?#% \t\\") || strings.Contains(p, "//") {
		return false
	}
	for _, taken := range []string{server.AdminPrefix, scenarios.DefaultRoute, server.HistoryPath, server.CancelPath} {
		if p == taken || strings.HasPrefix(p, server.AdminPrefix+"/") {
			return false
		}
	}
	return true
}
