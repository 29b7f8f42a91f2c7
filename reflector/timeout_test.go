package reflector_test

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

// A timeout is not a stop: a LIST or WATCH that fails with an error
// wrapping context.DeadlineExceeded (the client's own timeout, a dial
// timeout to a blackholed apiserver, an exec plugin that did not answer)
// while the caller's context is alive is a failure like any other. It is
// backed off (800 ms, then 1.6 s: one LIST per wait, not a burst) and
// logged as a warning with its cause.
func TestTimeoutIsBackedOffNotStopped(t *testing.T) {
	dialTimeout := &net.OpError{Op: "dial", Net: "tcp", Err: context.DeadlineExceeded}
	h := run(t, listWatch())
	h.lw.ExpectList().Fail(fmt.Errorf("list pods: %w", context.DeadlineExceeded))
	h.expectWait(800 * time.Millisecond)
	h.lw.ExpectList().Fail(fmt.Errorf("GET /api/v1/pods: %w", dialTimeout))
	h.expectWait(1600 * time.Millisecond)
	h.listAt("100")
	h.lw.ExpectWatch().Fail(fmt.Errorf("exec plugin: %w", context.DeadlineExceeded))
	h.expectWait(3200 * time.Millisecond)
	h.watchFrom("100")
	h.stop()
	if got := strings.Count(h.Log(), `"level":"warn"`); got != 3 {
		t.Errorf("%d warnings logged, want one per timeout (3):\n%s", got, h.Log())
	}
}
