package tap_test

import (
	"fmt"

	"github.com/kcmlab/kcm/tap"
)

// A layer asks for its point once and reports only while someone watches.
func Example() {
	var log tap.Log
	t := tap.New(&log, nil)
	socket := t.Point(tap.Socket, "pods", "")

	report := func(key string) {
		if socket.On() { // one atomic load while nobody watches
			socket.Emit(tap.Event{Op: "ADDED", Resource: "pods", Key: key, RV: "42"})
		}
	}
	report("default/before") // nobody watches: nothing is built
	t.SetOn(true)            // a browser connected
	report("default/web-0")

	for _, e := range log.Events() {
		fmt.Println(e.Stage, e.Source, e.Op, e.Key, e.RV)
	}
	// Output:
	// socket pods ADDED default/web-0 42
}
