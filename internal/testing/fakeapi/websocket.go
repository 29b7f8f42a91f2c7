package fakeapi

import (
	"net/http"
	"time"

	"github.com/gorilla/websocket"
)

// upgrader accepts any origin: kube-apiserver only insists that one is
// sent (see serveWebSocket).
var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

// serveWebSocket serves a watch over WebSocket, one event per message: a
// JSON event per text message, or a protobuf WatchEvent (no length
// prefix) per binary message. Like kube-apiserver 1.34, it refuses the
// handshake with 403 when the request has no Origin header; like it, the
// handshake carries no Content-Type, so a client tells protobuf from
// JSON by the messages.
func (s *Server) serveWebSocket(w http.ResponseWriter, r *http.Request, wr watchRequest) {
	if r.Header.Get("Origin") == "" {
		writeStatus(w, r, http.StatusForbidden, "Forbidden", "fakeapi: websocket watch without an Origin header")
		return
	}
	conn, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader has answered
	}
	s.websockets.Add(1)
	ws := &wsWriter{c: conn, left: make(chan struct{}), readerDone: make(chan struct{}), proto: wr.proto}
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
	proto      bool          // binary messages holding protobuf WatchEvents
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

func (ws *wsWriter) write(frame []byte) error { return ws.c.WriteMessage(ws.msgType(frame), frame) }
func (ws *wsWriter) flush() error             { return nil }
func (ws *wsWriter) gone() <-chan struct{}    { return ws.left }
func (ws *wsWriter) abort()                   { _ = ws.c.NetConn().Close() }
func (ws *wsWriter) garbage(b []byte) error   { return ws.write(b) }

// msgType is a binary message on a protobuf watch, unless b is JSON (a
// fault: JSON on a protobuf stream), and a text message on a JSON watch.
func (ws *wsWriter) msgType(b []byte) int {
	if ws.proto && (len(b) == 0 || b[0] != '{') {
		return websocket.BinaryMessage
	}
	return websocket.TextMessage
}
func (ws *wsWriter) deadline() (t time.Time)  { return time.Now().Add(time.Second) }
func (ws *wsWriter) closeMsg(code int) []byte { return websocket.FormatCloseMessage(code, "") }

// finish sends a normal close, as the server does when timeoutSeconds ran
// out.
func (ws *wsWriter) finish() {
	_ = ws.c.WriteControl(websocket.CloseMessage, ws.closeMsg(websocket.CloseNormalClosure), ws.deadline())
	_ = ws.c.Close()
}

// truncate writes a message header announcing the whole frame, then
// half of its payload, and cuts the connection: the client's WebSocket
// reader fails in the middle of a message.
func (ws *wsWriter) truncate(frame []byte) {
	n := len(frame)
	hdr := []byte{0x80 | byte(ws.msgType(frame))} // FIN + text or binary
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
