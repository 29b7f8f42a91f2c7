package testenv

import (
	"encoding/base64"
	"fmt"
	"os"

	"go.yaml.in/yaml/v3"
)

// KubeconfigContext is the name of the cluster, user and context in the
// kubeconfig files testenv writes.
const KubeconfigContext = "kcm-testenv"

// The kubeconfig schema (clientcmd's v1 Config), reduced to what testenv
// writes: one cluster, one user with a bearer token, one context.
type kubeconfig struct {
	APIVersion     string         `yaml:"apiVersion"`
	Kind           string         `yaml:"kind"`
	Clusters       []namedCluster `yaml:"clusters"`
	Users          []namedUser    `yaml:"users"`
	Contexts       []namedContext `yaml:"contexts"`
	CurrentContext string         `yaml:"current-context"`
}

type namedCluster struct {
	Name    string `yaml:"name"`
	Cluster struct {
		Server string `yaml:"server"`
		// certificate-authority-data is base64 of the PEM bytes; yaml's
		// []byte encoding would produce a !!binary tag, so it is a string.
		CAData string `yaml:"certificate-authority-data"`
	} `yaml:"cluster"`
}

type namedUser struct {
	Name string `yaml:"name"`
	User struct {
		Token string `yaml:"token"`
	} `yaml:"user"`
}

type namedContext struct {
	Name    string `yaml:"name"`
	Context struct {
		Cluster string `yaml:"cluster"`
		User    string `yaml:"user"`
	} `yaml:"context"`
}

// MarshalKubeconfig renders a kubeconfig that reaches server, trusting the
// PEM certificates in caPEM and authenticating with token.
func MarshalKubeconfig(server string, caPEM []byte, token string) ([]byte, error) {
	kc := kubeconfig{APIVersion: "v1", Kind: "Config", CurrentContext: KubeconfigContext}
	var cl namedCluster
	cl.Name = KubeconfigContext
	cl.Cluster.Server = server
	cl.Cluster.CAData = base64.StdEncoding.EncodeToString(caPEM)
	var u namedUser
	u.Name = KubeconfigContext
	u.User.Token = token
	var cx namedContext
	cx.Name = KubeconfigContext
	cx.Context.Cluster = KubeconfigContext
	cx.Context.User = KubeconfigContext
	kc.Clusters = []namedCluster{cl}
	kc.Users = []namedUser{u}
	kc.Contexts = []namedContext{cx}
	b, err := yaml.Marshal(&kc)
	if err != nil {
		return nil, fmt.Errorf("encode kubeconfig: %w", err)
	}
	return b, nil
}

// writeKubeconfig writes the kubeconfig to path, readable by its owner only
// (it holds a token).
func writeKubeconfig(path, server string, caPEM []byte, token string) error {
	b, err := MarshalKubeconfig(server, caPEM, token)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return fmt.Errorf("write kubeconfig: %w", err)
	}
	return nil
}
