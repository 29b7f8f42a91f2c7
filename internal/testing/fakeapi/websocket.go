package fakeapi

import (
	"net/http"
	"time"

	"github.com/gorilla/websocket"
)

// upgrader accepts any origin: kube-apiserver only insists that one is
// sent (see serveWebSocket).
var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

// serveWebSocket serves a watch over WebSocket, one event per text
// message. Like kube-apiserver 1.34, it refuses the handshake with 403 when
// the request has no Origin header.
func (s *Server) serveWebSocket(w http.ResponseWriter, r *http.Request, wr watchRequest) {
	if r.Header.Get("Origin") == "" {
		writeStatus(w, http.StatusForbidden, "Forbidden", "fakeapi: websocket watch without an Origin header")
		return
	}
	conn, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader has answered
	}
	s.websockets.Add(1)
	ws := &wsWriter{c: conn, left: make(chan struct{}), readerDone: make(chan struct{})}
	go ws.readUntilGone()
	s.runWatch(ws, wr)
	_ = conn.Close()
	<-ws.readerDone
}

// wsWriter writes a watch as WebSocket messages. A reader goroutine
// notices when the client leaves (the connection is hijacked, so the
// request's context says nothing).
type wsWriter struct {
	c          *websocket.Conn
	left       chan struct{} // closed when reading from the client failed
	readerDone chan struct{} // closed when the reader goroutine returned
}

func (ws *wsWriter) readUntilGone() {
	defer close(ws.readerDone)
	for {
		if _, _, err := ws.c.NextReader(); err != nil {
			close(ws.left)
			return
		}
	}
}

func (ws *wsWriter) write(frame []byte) error { return ws.c.WriteMessage(websocket.TextMessage, frame) }
func (ws *wsWriter) flush() error             { return nil }
func (ws *wsWriter) gone() <-chan struct{}    { return ws.left }
func (ws *wsWriter) abort()                   { _ = ws.c.NetConn().Close() }
func (ws *wsWriter) garbage(b []byte) error   { return ws.write(b) }
func (ws *wsWriter) deadline() (t time.Time)  { return time.Now().Add(time.Second) }
func (ws *wsWriter) closeMsg(code int) []byte { return websocket.FormatCloseMessage(code, "") }

// finish sends a normal close, as the server does when timeoutSeconds ran
// out.
func (ws *wsWriter) finish() {
	_ = ws.c.WriteControl(websocket.CloseMessage, ws.closeMsg(websocket.CloseNormalClosure), ws.deadline())
	_ = ws.c.Close()
}

// truncate writes a text frame header announcing the whole frame, then
// half of its payload, and cuts the connection: the client's WebSocket
// reader fails in the middle of a message.
func (ws *wsWriter) truncate(frame []byte) {
	n := len(frame)
	hdr := []byte{0x81} // FIN + text
	switch {
	case n < 126:
		hdr = append(hdr, byte(n))
	case n < 1<<16:
		hdr = append(hdr, 126, byte(n>>8), byte(n))
	default:
		hdr = append(hdr, 127, 0, 0, 0, 0, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
	_, _ = ws.c.NetConn().Write(append(hdr, frame[:n/2]...))
	ws.abort()
}
