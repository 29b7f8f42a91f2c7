package lease_test

import (
	"os"
	"testing"

	"github.com/kcmlab/kcm/testenv"
)

// TestMain runs the tests with testenv.Main: it stops the shared real
// cluster after the tests and then fails the run if any goroutine leaked.
func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }
