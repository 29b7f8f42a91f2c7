package redacttest

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/kcmlab/kcm/kube/internal/redact"
	"github.com/rs/zerolog"
)

// leaky has a String that redacts, but nothing else: %#v, %x in a struct and
// json.Marshal still show its field.
type leaky struct{ Token string }

func (leaky) String() string { return "leaky(" + redact.Placeholder + ")" }

// safe redacts everywhere.
type safe struct{ Token string }

func (s safe) Format(f fmt.State, verb rune) { redact.Format(f, verb, "safe("+redact.Placeholder+")") }
func (s safe) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]string{"token": redact.Secret(s.Token)})
}
func (s safe) MarshalZerologObject(e *zerolog.Event) { e.Str("token", redact.Secret(s.Token)) }

// TestLeaks checks the checker: it must catch the leaks of a type that only
// has a String method, and pass one that redacts everywhere.
func TestLeaks(t *testing.T) {
	if got := Leaks(leaky{Token: "SECRET"}, "SECRET"); len(got) == 0 {
		t.Error("Leaks found nothing in a type whose GoString and JSON show the token")
	}
	if got := Leaks(safe{Token: "SECRET"}, "SECRET"); len(got) != 0 {
		t.Errorf("Leaks reports a type that redacts everywhere: %q", got)
	}
	if got := fmt.Sprintf("%q", safe{}); got != `"safe(<redacted>)"` {
		t.Errorf("%%q = %s", got)
	}
}
