package rest

import (
	"fmt"
	"strings"
	"testing"
)

// TestConfigNeverPrintsSecrets formats a Config every way a log line or an
// error might, and checks no secret comes out.
func TestConfigNeverPrintsSecrets(t *testing.T) {
	cfg := Config{Host: "https://x", Credentials: StaticToken("tok-SECRET"),
		TLS: TLSConfig{CertData: []byte("cert"), KeyData: []byte("key-SECRET")}}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		for _, v := range []any{cfg, &cfg, cfg.TLS, cfg.Credentials} {
			if out := fmt.Sprintf(verb, v); strings.Contains(out, "SECRET") {
				t.Errorf("%s of %T leaks a secret: %s", verb, v, out)
			}
		}
	}
}
