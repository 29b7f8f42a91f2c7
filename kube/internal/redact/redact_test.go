package redact

import (
	"fmt"
	"testing"
)

type formatted struct{}

func (formatted) Format(f fmt.State, verb rune) { Format(f, verb, "x("+Placeholder+")") }

// TestFormat: %q quotes the redacted text, every other verb prints it.
func TestFormat(t *testing.T) {
	for verb, want := range map[string]string{"%q": `"x(<redacted>)"`, "%v": "x(<redacted>)", "%#v": "x(<redacted>)", "%x": "x(<redacted>)"} {
		if got := fmt.Sprintf(verb, formatted{}); got != want {
			t.Errorf("%s = %s, want %s", verb, got, want)
		}
	}
	if Secret("") != "" || Secret("x") != Placeholder {
		t.Error("Secret must tell set from unset")
	}
}
