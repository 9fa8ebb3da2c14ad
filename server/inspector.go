package server

import (
	"embed"
	"net/http"
	"path"
	"strings"

	"github.com/labstack/echo/v4"
)

// inspectorPath is where the inspector, a page of the admin API, is served.
const inspectorPath = AdminPrefix + "/ui"

// inspectorAssets are the inspector's page, style and scripts: hand-written, with no
// library, so that the page works offline and stays small (TestInspectorSize).
//
//go:embed inspector
var inspectorAssets embed.FS

// inspectorTypes are the content types of the inspector's assets, by extension.
var inspectorTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
}

// inspectorPolicy keeps the page to its own assets and its own origin: no inline script,
// nothing from elsewhere, and no other site may frame it.
const inspectorPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// isInspectorPath reports whether a path is the inspector's page or one of its assets.
func isInspectorPath(p string) bool {
	return p == inspectorPath || strings.HasPrefix(p, inspectorPath+"/")
}

// serveInspector answers the inspector's page (GET /_mock/ui) and its assets.
func serveInspector(c echo.Context) error {
	name := c.Param("asset")
	if name == "" {
		name = "index.html"
	}
	body, err := inspectorAssets.ReadFile("inspector/" + name)
	ctype, known := inspectorTypes[path.Ext(name)]
	if err != nil || !known || strings.Contains(name, "/") {
		return apiError(http.StatusNotFound, "not_found", "the inspector has no asset "+name)
	}
	h := c.Response().Header()
	h.Set("Content-Security-Policy", inspectorPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-cache")
	return c.Blob(http.StatusOK, ctype, body)
}
