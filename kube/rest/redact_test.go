package rest

import (
	"testing"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/internal/redact/redacttest"
)

// TestNothingPrintsSecrets formats every exported type of the package with
// every fmt verb, marshals it with encoding/json and logs it with zerolog
// (redacttest.Leaks), each holding a token and key bytes where it can, and
// finds neither. A new exported type fails the test until it is added here.
func TestNothingPrintsSecrets(t *testing.T) {
	secrets := []string{"TOKSECRET", "KEYSECRET"}
	cfg := Config{Host: "https://x", Credentials: StaticToken("TOKSECRET"), Source: "test",
		TLS: TLSConfig{CertData: []byte("cert"), KeyData: []byte("KEYSECRET")}}
	c, err := NewClient(&Config{Host: "https://x", Credentials: StaticToken("TOKSECRET")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	derived := c.WithOptions("ua", 1, 1)
	pods := NewResources(c, Pods, decode.Raw())
	values := []any{
		cfg, &cfg, cfg.TLS, &cfg.TLS, StaticToken("TOKSECRET"), cfg.Credentials,
		c, *c, derived, *derived, pods, *pods, &Watcher[*api.RawObject]{},
		RetryPolicy{}, Option(nil), Status{}, StatusDetails{}, StatusCause{}, &StatusError{}, Resource{},
		ListOptions{}, DeleteOptions{}, Preconditions{}, PatchType(""), PatchOptions{}, ListMeta{},
		List[*api.RawObject]{}, WatchTransport(0), WatchOptions{}, EventType(""), WatchEvent[*api.RawObject]{},
		TransportTimeouts{}, APIResource{Verbs: []string{"list"}}, &GroupDiscoveryError{Groups: map[string]error{"g/v": ErrNotFound}},
	}
	for _, v := range values {
		for _, leak := range redacttest.Leaks(v, secrets...) {
			t.Errorf("%T leaks a secret: %s", v, leak)
		}
	}
	missing, err := redacttest.Uncovered(".", values)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range missing {
		t.Errorf("exported type %s is not checked here: add a value of it", name)
	}
}
