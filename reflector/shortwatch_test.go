package reflector_test

import (
	"io"
	"testing"
	"time"
)

// client-go rule (reflector, VeryShortWatchError): a watch that the server
// ends normally within a second, having sent no event, is treated as an
// error and backed off, so that a misbehaving server or proxy does not get
// a hot loop. A watch that lasted a second, or that sent anything (a
// bookmark counts), is reopened at once.
func TestVeryShortWatchBacksOff(t *testing.T) {
	h := run(t, listWatch())
	h.listAt("100")
	w := h.watchFrom("100")
	h.clk.Step(999 * time.Millisecond)
	w.End(io.EOF)
	h.expectWait(800 * time.Millisecond)

	w = h.watchFrom("100")
	h.clk.Step(time.Second)
	w.End(io.EOF) // lasted a second: reopened at once
	w = h.watchFrom("100")
	w.Send(bookmark("150", false))
	w.End(io.EOF) // sent a bookmark: reopened at once
	h.watchFrom("150")
}
