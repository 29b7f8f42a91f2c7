package processor

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run if any test leaves a goroutine behind: every
// listener goroutine must be gone once Run returns or a handler is removed.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
