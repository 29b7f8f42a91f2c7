package testenv

import (
	"testing"

	"github.com/kcmlab/kcm/kube/rest"
)

// TestContentType: unset, the code under test reads protobuf, the
// manager's default; the variable picks JSON; a misspelt value is passed
// on for the client to refuse, never replaced by the default.
func TestContentType(t *testing.T) {
	for _, tc := range []struct{ env, want string }{
		{"", rest.ContentTypeProtobuf},
		{rest.ContentTypeJSON, rest.ContentTypeJSON},
		{rest.ContentTypeProtobuf, rest.ContentTypeProtobuf},
		{"json", "json"},
	} {
		t.Setenv(EnvContentType, tc.env)
		if got := ContentType(); got != tc.want {
			t.Errorf("%s=%q: ContentType() = %q, want %q", EnvContentType, tc.env, got, tc.want)
		}
		c := &Cluster{host: "https://127.0.0.1:1", token: "t"}
		if got := c.ManagerConfig().ContentType; got != tc.want {
			t.Errorf("%s=%q: ManagerConfig().ContentType = %q, want %q", EnvContentType, tc.env, got, tc.want)
		}
		if got := c.Config().ContentType; got != "" {
			t.Errorf("Config().ContentType = %q, want empty: the tests' own clients are not switched", got)
		}
	}
	t.Setenv(EnvContentType, "json")
	if _, err := rest.NewClient((&Cluster{host: "https://127.0.0.1:1"}).ManagerConfig()); err == nil {
		t.Error(`a misspelt KCM_TEST_CONTENT_TYPE ("json") was accepted`)
	}
}
