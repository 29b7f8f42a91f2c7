package rest_test

import (
	"os"
	"testing"

	"github.com/kcmlab/kcm/testenv"
)

// TestMain runs the package's tests against the shared real cluster and
// checks for leaked goroutines afterwards.
func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }
