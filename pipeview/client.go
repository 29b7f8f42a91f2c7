package pipeview

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

// conn is what a client needs of its WebSocket (a *websocket.Conn).
type conn interface {
	ReadMessage() (int, []byte, error)
	WriteMessage(messageType int, data []byte) error
	SetWriteDeadline(t time.Time) error
	SetReadLimit(limit int64)
	Close() error
}

// maxCommand bounds a message from a browser.
const maxCommand = 4096

// client is one connected browser: a bounded buffer of updates that
// publish offers to without ever waiting, a writer goroutine that sends
// them, and the reader (the HTTP handler's goroutine) that takes its
// commands.
type client struct {
	h    *Hub
	c    conn
	send chan []byte
	// dropped counts updates not buffered because the browser was behind.
	dropped atomic.Uint64

	mu       sync.Mutex
	trail    *trail // the object followed; nil: none. Guarded by mu.
	selected string // the stage whose details are asked for. Guarded by mu.
	problem  string // the last refused command, reported once. Guarded by mu.

	closeOnce sync.Once
	closed    chan struct{}
}

func newClient(h *Hub, c conn) *client {
	return &client{h: h, c: c, send: make(chan []byte, h.o.ClientBuffer), closed: make(chan struct{})}
}

// offer buffers msg for the browser, or drops and counts it when the
// buffer is full. It never blocks.
func (c *client) offer(msg []byte) {
	select {
	case c.send <- msg:
	default:
		c.dropped.Add(1)
	}
}

// close disconnects the browser; its goroutines then return.
func (c *client) close() {
	c.closeOnce.Do(func() {
		close(c.closed)
		_ = c.c.Close()
	})
}

// serve runs a connected browser until it leaves, it fails to take an
// update within the write timeout, or the Hub stops.
func (h *Hub) serve(c conn) {
	cl := newClient(h, c)
	if !h.join(cl) {
		_ = c.Close()
		return
	}
	defer h.conns.Done()
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		cl.writeLoop()
	}()
	h.poke() // a first update at once
	cl.readLoop()
	cl.close()
	<-wrote
	h.leave(cl)
}

func (c *client) writeLoop() {
	for {
		select {
		case <-c.closed:
			return
		case msg := <-c.send:
			_ = c.c.SetWriteDeadline(time.Now().Add(c.h.o.WriteTimeout))
			if err := c.c.WriteMessage(websocket.TextMessage, msg); err != nil {
				c.h.o.Logger.Debug().Err(err).Msg("pipeline view: browser disconnected")
				c.close()
				return
			}
		}
	}
}

// command is a message from the page.
type command struct {
	// Follow starts following an object; a null or empty target stops.
	Follow *target `json:"follow"`
	// Select asks for the details of one stage ("" for none).
	Select *string `json:"select"`
}

// Errors of commands.
var (
	ErrBadCommand = errors.New("pipeview: bad command")
)

func (c *client) readLoop() {
	c.c.SetReadLimit(maxCommand)
	for {
		_, data, err := c.c.ReadMessage()
		if err != nil {
			return
		}
		if err := c.apply(data); err != nil {
			c.mu.Lock()
			c.problem = err.Error()
			c.mu.Unlock()
		}
		c.h.refreshFollows()
		c.h.poke()
	}
}

// apply carries out one command.
func (c *client) apply(data []byte) error {
	var cmd command
	if err := json.Unmarshal(data, &cmd); err != nil {
		return fmt.Errorf("%w: %w", ErrBadCommand, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if cmd.Select != nil {
		if len(*cmd.Select) > 512 {
			return fmt.Errorf("%w: stage name longer than 512 bytes", ErrBadCommand)
		}
		c.selected = *cmd.Select
	}
	if cmd.Follow == nil {
		if len(data) > 0 && jsonHasKey(data, "follow") {
			c.trail = nil
		}
		return nil
	}
	t := *cmd.Follow
	switch {
	case t.Key == "":
		c.trail = nil
		return nil
	case len(t.Key) > 512 || len(t.Resource) > 253 || t.Resource == "":
		return fmt.Errorf("%w: follow needs a resource (at most 253 bytes) and a key (at most 512)", ErrBadCommand)
	}
	c.trail = newTrail(t)
	return nil
}

// following returns the object the browser follows, if any.
func (c *client) following() (target, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.trail == nil {
		return target{}, false
	}
	return c.trail.target, true
}

// jsonHasKey reports whether the JSON object data has key at its top.
func jsonHasKey(data []byte, key string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return false
	}
	_, ok := m[key]
	return ok
}

// update is one message to a browser:
//
//	{"view": <the shared view>, "follow": <trailView or null>, "selected": "...",
//	 "dropped": <updates this browser missed by being slow>, "problem": "..."}
//
// It is assembled around the view's bytes, encoded once per update for
// every browser.
func (c *client) message(view []byte, points []*point) ([]byte, error) {
	c.mu.Lock()
	var follow []byte
	var err error
	if c.trail != nil {
		c.trail.update(points, &c.h.writes)
		follow, err = json.Marshal(c.trail.view())
	}
	selected, problem := c.selected, c.problem
	c.problem = ""
	c.mu.Unlock()
	if err != nil {
		return nil, err
	}
	msg := make([]byte, 0, len(view)+len(follow)+256)
	msg = append(msg, `{"view":`...)
	msg = append(msg, view...)
	msg = append(msg, `,"follow":`...)
	if follow == nil {
		follow = []byte("null")
	}
	msg = append(msg, follow...)
	msg = append(msg, `,"selected":`...)
	msg = appendJSONString(msg, selected)
	msg = append(msg, `,"dropped":`...)
	msg = strconv.AppendUint(msg, c.dropped.Load(), 10)
	if problem != "" {
		msg = append(msg, `,"problem":`...)
		msg = appendJSONString(msg, problem)
	}
	return append(msg, '}'), nil
}

// appendJSONString appends s as a JSON string (strconv.Quote's escapes
// are Go's, not JSON's).
func appendJSONString(dst []byte, s string) []byte {
	b, _ := json.Marshal(s) // a string always encodes
	return append(dst, b...)
}

// publish sends every browser an update: the shared view of all stages,
// plus what each follows. It never waits for a browser.
func (h *Hub) publish() {
	clients := h.clientList()
	if len(clients) == 0 {
		return
	}
	selected := map[string]bool{}
	for _, c := range clients {
		c.mu.Lock()
		if c.selected != "" {
			selected[c.selected] = true
		}
		c.mu.Unlock()
	}
	v := h.buildView(h.o.Clock.Now(), selected)
	view, err := json.Marshal(v)
	if err != nil {
		h.o.Logger.Error().Err(err).Msg("pipeline view: encoding an update")
		return
	}
	points := h.pointList()
	for _, c := range clients {
		msg, err := c.message(view, points)
		if err != nil {
			h.o.Logger.Error().Err(err).Msg("pipeline view: encoding an update")
			continue
		}
		c.offer(msg)
	}
}
