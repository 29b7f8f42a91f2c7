// Package redact is how kcm's client types keep secrets out of print: one
// placeholder and one fmt.Formatter body. Package redacttest holds Leaks,
// the check their tests run over every exported type (every fmt verb,
// encoding/json, zerolog).
//
// A type that holds a secret (a token, a password, key bytes, an exec
// plugin's env values) implements fmt.Formatter with Format, so that no
// verb, not even %#v or %x, falls back to printing its fields;
// json.Marshaler, so that log.Interface and json.Marshal see a redacted
// view; and zerolog.LogObjectMarshaler, so that log.Object does too.
package redact

import (
	"fmt"
	"io"
)

// Placeholder replaces a secret's value wherever it would be shown.
const Placeholder = "<redacted>"

// Format writes s, a type's redacted description, for any verb: %q quotes
// it, every other verb prints it as is. It is the body of the Format methods
// of secret-bearing types.
func Format(f fmt.State, verb rune, s string) {
	if verb == 'q' {
		fmt.Fprintf(f, "%q", s)
		return
	}
	_, _ = io.WriteString(f, s)
}

// Secret returns Placeholder for a non-empty value and "" for an empty one,
// so that a redacted view still tells whether the secret is set.
func Secret(v string) string {
	if v == "" {
		return ""
	}
	return Placeholder
}
