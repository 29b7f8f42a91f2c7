package protocodec_test

import (
	"os"
	"testing"

	"github.com/kcmlab/kcm/testenv"
)

// TestMain runs the tests with testenv.Main: it stops the shared real
// cluster after the tests (apiserver_test.go) and then fails the run if
// any goroutine leaked. It is in the external test package so that the
// internal tests never import testenv's dependencies (kube/rest, which
// may come to import this package).
func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }
