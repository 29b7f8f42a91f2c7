package e2e

import (
	"os"
	"testing"

	"github.com/kcmlab/kcm/testenv"
)

// TestMain runs the tests, stops the shared test cluster if one started,
// and checks for leaked goroutines.
func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }
