package clientcmd

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Sentinel errors of kubeconfig loading. Every error LoadKubeconfig and its
// relatives return wraps one of them, so callers can branch with errors.Is.
var (
	// ErrNoKubeconfig: no explicit path was given and none of the files
	// searched ($KUBECONFIG, ~/.kube/config) exists.
	ErrNoKubeconfig = errors.New("no kubeconfig found")
	// ErrInvalidKubeconfig is wrapped by every error about a malformed or
	// incomplete kubeconfig (YAML syntax, missing or bad fields, dangling
	// references). *KubeconfigError carries the details.
	ErrInvalidKubeconfig = errors.New("invalid kubeconfig")
	// ErrNoContext: neither --context nor current-context names a context.
	ErrNoContext = errors.New("no context chosen")
	// ErrContextNotFound: the chosen context is not defined in any file.
	ErrContextNotFound = errors.New("context not found")
)

// Kubeconfig is what one kubeconfig file says, or several merged: named
// clusters, users and contexts plus the current context. Values are kept as
// written (the *-data fields still base64) so that a broken entry is reported
// when, and only when, a context that uses it is chosen, with the context's
// name in the message. Relative file paths are already resolved against the
// directory of the file that defined them.
//
// String and GoString print counts, never entries, so a Kubeconfig can be
// logged; the users' own String methods redact their secrets.
type Kubeconfig struct {
	// Files lists the files merged into this config, highest precedence
	// first. Empty for a config parsed from bytes without a path.
	Files []string
	// CurrentContext is the current-context of the first file that sets it.
	CurrentContext string
	// CurrentContextFile is the file CurrentContext came from.
	CurrentContextFile string

	Contexts map[string]*KubeconfigContext
	Clusters map[string]*KubeconfigCluster
	Users    map[string]*KubeconfigUser
}

// KubeconfigContext binds a cluster to a user.
type KubeconfigContext struct {
	// File is the kubeconfig file that defined this context.
	File      string `yaml:"-"`
	Cluster   string `yaml:"cluster"`
	User      string `yaml:"user"`
	Namespace string `yaml:"namespace"`
}

// KubeconfigCluster says where an apiserver is and how to trust it.
type KubeconfigCluster struct {
	// File is the kubeconfig file that defined this cluster.
	File                     string `yaml:"-"`
	Server                   string `yaml:"server"`
	TLSServerName            string `yaml:"tls-server-name"`
	InsecureSkipTLSVerify    bool   `yaml:"insecure-skip-tls-verify"`
	CertificateAuthority     string `yaml:"certificate-authority"`
	CertificateAuthorityData string `yaml:"certificate-authority-data"`
	// ExecExtension is the value of the extension named
	// "client.authentication.k8s.io/exec", handed to exec plugins that ask
	// for cluster info (spec.cluster.config). Nil when absent.
	ExecExtension any `yaml:"-"`
}

// KubeconfigUser is one user entry ("authInfo"). Token, Password and
// ClientKeyData are secrets: String and GoString redact them.
type KubeconfigUser struct {
	// File is the kubeconfig file that defined this user.
	File                  string      `yaml:"-"`
	Token                 string      `yaml:"token"`
	TokenFile             string      `yaml:"tokenFile"`
	ClientCertificate     string      `yaml:"client-certificate"`
	ClientCertificateData string      `yaml:"client-certificate-data"`
	ClientKey             string      `yaml:"client-key"`
	ClientKeyData         string      `yaml:"client-key-data"`
	Username              string      `yaml:"username"`
	Password              string      `yaml:"password"`
	Exec                  *ExecConfig `yaml:"exec"`
	// Impersonate (kubectl's "as") and AuthProvider are recognised only to
	// refuse them: kcm supports neither, and silently ignoring them would
	// act as a different identity than the kubeconfig intends.
	Impersonate  string                  `yaml:"as"`
	AuthProvider *KubeconfigAuthProvider `yaml:"auth-provider"`
}

// KubeconfigAuthProvider is the part of a legacy auth-provider entry kcm
// reads: its name, for the error that says it is unsupported. Its config map,
// which holds tokens, is never decoded.
type KubeconfigAuthProvider struct {
	Name string `yaml:"name"`
}

// ExecConfig is a user's exec credential plugin, as written in a kubeconfig.
// Args and Env values may hold secrets; String and GoString print only the
// command, the number of args and the names of env variables.
type ExecConfig struct {
	APIVersion         string       `yaml:"apiVersion"`
	Command            string       `yaml:"command"`
	Args               []string     `yaml:"args"`
	Env                []ExecEnvVar `yaml:"env"`
	InstallHint        string       `yaml:"installHint"`
	ProvideClusterInfo bool         `yaml:"provideClusterInfo"`
	InteractiveMode    string       `yaml:"interactiveMode"`
}

// ExecEnvVar is one extra environment variable for an exec plugin.
type ExecEnvVar struct {
	Name  string `yaml:"name"`
	Value string `yaml:"value"`
}

// execExtensionName names the cluster extension passed to exec plugins.
const execExtensionName = "client.authentication.k8s.io/exec"

// kubeconfigDoc is the YAML shape of one file. Unknown fields (preferences,
// extensions other than the exec one, proxy-url, ...) are ignored.
type kubeconfigDoc struct {
	CurrentContext string `yaml:"current-context"`
	Clusters       []struct {
		Name    string `yaml:"name"`
		Cluster struct {
			KubeconfigCluster `yaml:",inline"`
			Extensions        []struct {
				Name      string `yaml:"name"`
				Extension any    `yaml:"extension"`
			} `yaml:"extensions"`
		} `yaml:"cluster"`
	} `yaml:"clusters"`
	Users []struct {
		Name string         `yaml:"name"`
		User KubeconfigUser `yaml:"user"`
	} `yaml:"users"`
	Contexts []struct {
		Name    string            `yaml:"name"`
		Context KubeconfigContext `yaml:"context"`
	} `yaml:"contexts"`
}

// ParseKubeconfig parses one kubeconfig file's bytes. path names the file in
// errors and anchors relative paths inside it (certificate-authority,
// client-certificate, client-key, tokenFile, and an exec command that
// contains a path separator); with path "" they stay relative to the working
// directory. Empty input is an empty config, as kubectl treats it.
func ParseKubeconfig(data []byte, path string) (*Kubeconfig, error) {
	kc := &Kubeconfig{
		Contexts: map[string]*KubeconfigContext{},
		Clusters: map[string]*KubeconfigCluster{},
		Users:    map[string]*KubeconfigUser{},
	}
	if path != "" {
		kc.Files = []string{path}
	}
	var doc kubeconfigDoc
	if len(bytes.TrimSpace(data)) > 0 {
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return nil, &KubeconfigError{File: path, Err: redactYAMLError(err, data)}
		}
	}
	kc.CurrentContext = doc.CurrentContext
	if doc.CurrentContext != "" {
		kc.CurrentContextFile = path
	}
	dir := ""
	if path != "" {
		dir = filepath.Dir(path)
	}
	for i, e := range doc.Clusters {
		c := e.Cluster.KubeconfigCluster
		c.File = path
		c.CertificateAuthority = resolveKubeconfigPath(dir, c.CertificateAuthority)
		for _, x := range e.Cluster.Extensions {
			if x.Name == execExtensionName {
				c.ExecExtension = jsonableYAML(x.Extension)
			}
		}
		if err := addKubeconfigEntry(kc.Clusters, "cluster", i, e.Name, &c, path); err != nil {
			return nil, err
		}
	}
	for i, e := range doc.Users {
		u := e.User
		u.File = path
		u.TokenFile = resolveKubeconfigPath(dir, u.TokenFile)
		u.ClientCertificate = resolveKubeconfigPath(dir, u.ClientCertificate)
		u.ClientKey = resolveKubeconfigPath(dir, u.ClientKey)
		if u.Exec != nil && strings.ContainsRune(u.Exec.Command, filepath.Separator) {
			u.Exec.Command = resolveKubeconfigPath(dir, u.Exec.Command)
		}
		if err := addKubeconfigEntry(kc.Users, "user", i, e.Name, &u, path); err != nil {
			return nil, err
		}
	}
	for i, e := range doc.Contexts {
		c := e.Context
		c.File = path
		if err := addKubeconfigEntry(kc.Contexts, "context", i, e.Name, &c, path); err != nil {
			return nil, err
		}
	}
	return kc, nil
}

// addKubeconfigEntry puts one named list entry into its map. Like kubectl,
// a name may appear only once per file.
func addKubeconfigEntry[T any](m map[string]*T, kind string, i int, name string, v *T, path string) error {
	if name == "" {
		return &KubeconfigError{File: path, Problem: fmt.Sprintf("%ss[%d]: name is not set", kind, i)}
	}
	if _, dup := m[name]; dup {
		return &KubeconfigError{File: path, Problem: fmt.Sprintf("%s %q is defined twice", kind, name)}
	}
	m[name] = v
	return nil
}

// resolveKubeconfigPath makes p relative to dir unless it is absolute or
// empty.
func resolveKubeconfigPath(dir, p string) string {
	if p == "" || dir == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// jsonableYAML turns what yaml.v3 decodes into `any` into something
// encoding/json can marshal (yaml may produce map[any]any for odd keys).
func jsonableYAML(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = jsonableYAML(e)
		}
		return t
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[fmt.Sprint(k)] = jsonableYAML(e)
		}
		return m
	case []any:
		for i, e := range t {
			t[i] = jsonableYAML(e)
		}
		return t
	default:
		return v
	}
}

// KubeconfigError describes a malformed or incomplete kubeconfig. Its message
// names the file, the context (when known), the entry and the field, never a
// field's value:
//
//	kubeconfig /home/u/.kube/config: context "dev": user "alice": client-key-data is not valid base64
//
// It matches ErrInvalidKubeconfig and its cause with errors.Is.
type KubeconfigError struct {
	File    string // file that holds the problem ("" for bytes without a path)
	Context string // context being resolved, if any
	Entry   string // e.g. `user "alice"` or `cluster "prod"`, if any
	Problem string // what is wrong, naming the field
	Err     error  // underlying cause, if any

	// kind is a sentinel the error matches without printing it (the
	// Problem already says it).
	kind error
}

// Error implements error.
func (e *KubeconfigError) Error() string {
	var b strings.Builder
	b.WriteString("kubeconfig")
	if e.File != "" {
		b.WriteString(" " + e.File)
	}
	if e.Context != "" {
		fmt.Fprintf(&b, ": context %q", e.Context)
	}
	if e.Entry != "" {
		b.WriteString(": " + e.Entry)
	}
	if e.Problem != "" {
		b.WriteString(": " + e.Problem)
	}
	if e.Err != nil {
		b.WriteString(": " + e.Err.Error())
	}
	return b.String()
}

// Unwrap lets errors.Is find ErrInvalidKubeconfig and the cause.
func (e *KubeconfigError) Unwrap() []error {
	errs := []error{ErrInvalidKubeconfig}
	for _, err := range []error{e.kind, e.Err} {
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}
