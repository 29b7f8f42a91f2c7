package pipeview

import (
	"embed"
	"io/fs"
	"net"
	"net/http"
	"strings"

	"github.com/gorilla/websocket"
)

// Path is where the view is served.
const Path = "/debug/pipeline"

//go:embed static
var static embed.FS

// Install serves the view on mux: the page at Path, its files under
// Path/static/ and its WebSocket at Path/ws. Only GET is answered. The
// page and the socket share one origin; the socket refuses a handshake
// from any other (a web page elsewhere cannot read the feed), and with
// Options.LoopbackOnly every request must name a loopback host.
func (h *Hub) Install(mux *http.ServeMux) {
	files, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embedded directory is part of the binary
	}
	mux.Handle("GET "+Path, h.guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeFileFS(w, r, files, "index.html")
	})))
	mux.Handle("GET "+Path+"/static/", h.guard(http.StripPrefix(Path+"/static/", http.FileServerFS(files))))
	mux.Handle("GET "+Path+"/ws", h.guard(http.HandlerFunc(h.upgrade)))
}

var upgrader = websocket.Upgrader{ReadBufferSize: 1024, WriteBufferSize: 16 << 10}

// upgrade turns the request into a browser connection and serves it.
func (h *Hub) upgrade(w http.ResponseWriter, r *http.Request) {
	ws, err := upgrader.Upgrade(w, r, nil) // refuses a foreign Origin with 403
	if err != nil {
		return // Upgrade answered the request
	}
	h.serve(ws)
}

// guard sets the page's security headers and, with LoopbackOnly, refuses
// a Host that is not loopback.
func (h *Hub) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h.o.LoopbackOnly && !loopbackHost(r.Host) {
			http.Error(w, "the pipeline view answers only to localhost, 127.0.0.1 or [::1]", http.StatusForbidden)
			return
		}
		hd := w.Header()
		hd.Set("Content-Security-Policy", "default-src 'self'; connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

// loopbackHost reports whether a Host header names this machine's
// loopback: localhost, or a loopback IP address, with or without a port.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
