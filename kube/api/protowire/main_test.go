package protowire_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any of them leaves a goroutine
// behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
