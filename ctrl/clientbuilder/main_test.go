package clientbuilder_test

import (
	"os"
	"testing"

	"github.com/kcmlab/kcm/testenv"
)

// TestMain shares one real cluster among the integration tests, stops it
// after the tests and checks for leaked goroutines.
func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }
