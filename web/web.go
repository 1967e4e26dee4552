// Package web is the read-only page that `lore serve --http` serves at
// "/": browse a namespace's records, see the link graph around one, build
// a packet and see where its budget went, ask why a record is in or out,
// and copy the packet's text.
//
// The page is three files embedded in the binary (no build step, no CDN,
// no network): it reads everything through the JSON API under /v1, with
// the API's bearer token when the server has one. The files hold no
// data, so they are served without auth; every call they make is
// checked.
package web

import (
	"embed"
	"io/fs"
	"net/http"
	"strings"
)

// Prefix is the path the page's own files are served under.
const Prefix = "/ui/"

//go:embed static
var static embed.FS

// Handler serves the page at "/" and its files under Prefix, with a
// content security policy that lets the page load only its own files and
// call only its own server.
func Handler() http.Handler {
	files, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embedded folder is part of the build
	}
	serve := http.StripPrefix(Prefix, http.FileServerFS(files))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-cache")
		switch {
		case r.URL.Path == "/":
			http.ServeFileFS(w, r, files, "index.html")
		case strings.HasSuffix(r.URL.Path, "/"):
			http.NotFound(w, r) // no listing of the page's folder
		default:
			serve.ServeHTTP(w, r)
		}
	})
}
