package browser_test

import (
	"fmt"
	"strings"

	"github.com/kcmlab/kcm/internal/testing/browser"
)

// The flags a test browser starts with: headless, isolated in its own
// profile, and quiet on the network.
func ExampleFlags() {
	fmt.Println(strings.Join(browser.Flags("/tmp/profile")[:6], " "))
	// Output:
	// --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --disable-quic --no-first-run
}
