package ctrl_test

import (
	"errors"
	"fmt"

	"github.com/kcmlab/kcm/ctrl"
)

// A sync returns a TerminalError for what retrying cannot fix; the loop
// logs and counts it and does not add the key again.
func ExampleTerminalError() {
	cause := errors.New(`selector "app in" does not parse`)
	err := fmt.Errorf("syncing ns/web: %w", ctrl.TerminalError(cause))
	fmt.Println(err)
	fmt.Println(ctrl.IsTerminal(err), errors.Is(err, cause), ctrl.IsTerminal(cause))
	// Output:
	// syncing ns/web: terminal error: selector "app in" does not parse
	// true true false
}
