package pipeview

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/tap"
)

// patience bounds every wait in these tests: a safety net that turns a
// hang into a failure, never a way to let time pass.
const patience = 20 * time.Second

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// fakeConn is a browser connection under the test's control. Reads block
// until a command is queued or the connection is closed; writes are
// recorded, or block until closed when stuck is set.
type fakeConn struct {
	mu       sync.Mutex
	written  [][]byte
	stuck    bool
	commands chan []byte
	closed   chan struct{}
	once     sync.Once
	// reading is closed when the first ReadMessage starts (the client has
	// joined); writing when the first WriteMessage starts.
	reading, writing    chan struct{}
	readOnce, writeOnce sync.Once
}

func newFakeConn(stuck bool) *fakeConn {
	return &fakeConn{stuck: stuck, commands: make(chan []byte, 16), closed: make(chan struct{}),
		reading: make(chan struct{}), writing: make(chan struct{})}
}

var errClosed = errors.New("fake connection closed")

func (f *fakeConn) ReadMessage() (int, []byte, error) {
	f.readOnce.Do(func() { close(f.reading) })
	select {
	case c := <-f.commands:
		return 1, c, nil
	case <-f.closed:
		return 0, nil, errClosed
	}
}

func (f *fakeConn) WriteMessage(_ int, data []byte) error {
	f.writeOnce.Do(func() { close(f.writing) })
	if f.stuck {
		<-f.closed
		return errClosed
	}
	select {
	case <-f.closed:
		return errClosed
	default:
	}
	f.mu.Lock()
	f.written = append(f.written, data)
	f.mu.Unlock()
	return nil
}

func (f *fakeConn) SetWriteDeadline(time.Time) error { return nil }
func (f *fakeConn) SetReadLimit(int64)               {}
func (f *fakeConn) Close() error {
	f.once.Do(func() { close(f.closed) })
	return nil
}

// updates decodes what was written so far.
func (f *fakeConn) updates(t *testing.T) []decodedUpdate {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []decodedUpdate
	for _, w := range f.written {
		var u decodedUpdate
		if err := json.Unmarshal(w, &u); err != nil {
			t.Fatalf("update is not JSON: %v", err)
		}
		out = append(out, u)
	}
	return out
}

type decodedUpdate struct {
	View     view       `json:"view"`
	Follow   *trailView `json:"follow"`
	Selected string     `json:"selected"`
	Dropped  uint64     `json:"dropped"`
	Problem  string     `json:"problem"`
}

// connect serves c on h in a goroutine and returns once it has joined;
// the returned func disconnects it and waits for serve to return.
func connect(t *testing.T, h *Hub, c *fakeConn) func() {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); h.serve(c) }()
	select {
	case <-c.reading:
	case <-time.After(patience):
		t.Fatal("the browser never joined")
	}
	return func() {
		_ = c.Close()
		<-done
	}
}

// waitFor polls cond (it reads state other goroutines change) until it
// holds, failing after patience.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s", what)
		case <-time.After(time.Millisecond):
		}
	}
}

// pipeline is one informer ("pods"), one controller and its client, as
// tap points of a hub.
type pipeline struct {
	socket, fifo, store, rsHandler, depHandler, enqueue, sync, write, rsSocket *tap.Point
}

func newPipeline(tp *tap.Tap) pipeline {
	return pipeline{
		socket:     tp.Point(tap.Socket, "pods", ""),
		fifo:       tp.Point(tap.FIFO, "pods", ""),
		store:      tp.Point(tap.Store, "pods", ""),
		rsHandler:  tp.Point(tap.Handler, "pods", "replicaset-controller"),
		depHandler: tp.Point(tap.Handler, "pods", "deployment-controller"),
		enqueue:    tp.Point(tap.Enqueue, "replicaset-controller", ""),
		sync:       tp.Point(tap.Sync, "replicaset-controller", ""),
		write:      tp.Point(tap.Write, "kcm/v0 (replicaset-controller)", ""),
		rsSocket:   tp.Point(tap.Socket, "replicasets.apps", ""),
	}
}

func newHub(clk *clock.Fake, o Options) *Hub {
	o.Clock = clk
	return New(o)
}
