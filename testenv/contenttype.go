package testenv

import (
	"os"

	"github.com/kcmlab/kcm/kube/rest"
)

// EnvContentType names the environment variable that picks the encoding
// the code under test reads with: the manager's --kube-api-content-type
// and the rest.Config.ContentType of the clients controllers are tested
// on (ManagerConfig). Unset or empty means the manager's default,
// rest.ContentTypeProtobuf; `make test-json` sets it to
// rest.ContentTypeJSON. Any other value is passed on as it is, so the
// client (rest.NewClient) or the manager (Options.Validate) refuses it,
// naming it: a misspelt switch fails the tests instead of quietly
// testing the default.
const EnvContentType = "KCM_TEST_CONTENT_TYPE"

// ContentType is the encoding this test run reads with: $KCM_TEST_CONTENT_TYPE,
// or rest.ContentTypeProtobuf (the manager's default) when it is unset.
// Tests that run the manager set Options.KubeAPIContentType to it.
func ContentType() string {
	if v := os.Getenv(EnvContentType); v != "" {
		return v
	}
	return rest.ContentTypeProtobuf
}

// ManagerConfig is Config with ContentType set to ContentType(): the
// config of the code under test (a controller's client, the manager's),
// where Config, whose ContentType is empty (JSON), serves the tests' own
// set-up and checks.
func (c *Cluster) ManagerConfig() *rest.Config {
	cfg := c.Config()
	cfg.ContentType = ContentType()
	return cfg
}
