package clientcmd

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kcmlab/kcm/kube/internal/redact"
	"github.com/rs/zerolog"
)

// How the types of this package print. Those that hold secrets (a user's
// token, password and key data, an exec plugin's args and env values, the
// credentials built from them) implement fmt.Formatter, so every verb
// (%#v and %x included) prints the redacted String; json.Marshaler, so that
// json.Marshal and zerolog's Interface see a redacted view; and
// zerolog.LogObjectMarshaler. The others hold no secret. TestNothingPrintsSecrets
// checks every exported type.

// String describes the merged config without its entries.
func (k *Kubeconfig) String() string {
	if k == nil {
		return "<nil clientcmd.Kubeconfig>"
	}
	return fmt.Sprintf("clientcmd.Kubeconfig{Files: %q, CurrentContext: %q, Contexts: %d, Clusters: %d, Users: %d}",
		k.Files, k.CurrentContext, len(k.Contexts), len(k.Clusters), len(k.Users))
}

// GoString keeps %#v as terse as %v.
func (k *Kubeconfig) GoString() string { return k.String() }

// Format prints String for every verb.
func (k *Kubeconfig) Format(f fmt.State, verb rune) { redact.Format(f, verb, k.String()) }

// MarshalZerologObject logs what String shows.
func (k *Kubeconfig) MarshalZerologObject(e *zerolog.Event) {
	e.Strs("files", k.Files).Str("currentContext", k.CurrentContext).
		Int("contexts", len(k.Contexts)).Int("clusters", len(k.Clusters)).Int("users", len(k.Users))
}

// String prints the cluster without its exec extension, which is opaque.
func (c KubeconfigCluster) String() string {
	return fmt.Sprintf("clientcmd.KubeconfigCluster{File: %q, Server: %q, TLSServerName: %q, Insecure: %t, "+
		"CertificateAuthority: %q, CertificateAuthorityData: %d bytes, ExecExtension: %t}",
		c.File, c.Server, c.TLSServerName, c.InsecureSkipTLSVerify, c.CertificateAuthority,
		len(c.CertificateAuthorityData), c.ExecExtension != nil)
}

// GoString keeps %#v as terse as %v.
func (c KubeconfigCluster) GoString() string { return c.String() }

// String names the user's auth fields and redacts the secrets among them.
func (u KubeconfigUser) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "clientcmd.KubeconfigUser{File: %q", u.File)
	secret := func(name, v string) {
		if v != "" {
			fmt.Fprintf(&b, ", %s: %s", name, redact.Placeholder)
		}
	}
	plain := func(name, v string) {
		if v != "" {
			fmt.Fprintf(&b, ", %s: %q", name, v)
		}
	}
	secret("Token", u.Token)
	plain("TokenFile", u.TokenFile)
	plain("ClientCertificate", u.ClientCertificate)
	if u.ClientCertificateData != "" {
		fmt.Fprintf(&b, ", ClientCertificateData: %d bytes", len(u.ClientCertificateData))
	}
	plain("ClientKey", u.ClientKey)
	secret("ClientKeyData", u.ClientKeyData)
	plain("Username", u.Username)
	secret("Password", u.Password)
	plain("Impersonate", u.Impersonate)
	if u.AuthProvider != nil {
		plain("AuthProvider", u.AuthProvider.Name)
	}
	if u.Exec != nil {
		b.WriteString(", Exec: " + u.Exec.String())
	}
	b.WriteString("}")
	return b.String()
}

// GoString redacts like String.
func (u KubeconfigUser) GoString() string { return u.String() }

// Format prints String for every verb.
func (u KubeconfigUser) Format(f fmt.State, verb rune) { redact.Format(f, verb, u.String()) }

// userView is what KubeconfigUser marshals to: its fields under their
// kubeconfig names, secrets replaced by the placeholder.
type userView struct {
	File                  string      `json:"file,omitempty"`
	Token                 string      `json:"token,omitempty"`
	TokenFile             string      `json:"tokenFile,omitempty"`
	ClientCertificate     string      `json:"client-certificate,omitempty"`
	ClientCertificateData int         `json:"client-certificate-data-bytes,omitempty"`
	ClientKey             string      `json:"client-key,omitempty"`
	ClientKeyData         string      `json:"client-key-data,omitempty"`
	Username              string      `json:"username,omitempty"`
	Password              string      `json:"password,omitempty"`
	Exec                  *ExecConfig `json:"exec,omitempty"`
	Impersonate           string      `json:"as,omitempty"`
	AuthProvider          string      `json:"auth-provider,omitempty"`
}

func (u KubeconfigUser) view() userView {
	v := userView{File: u.File, Token: redact.Secret(u.Token), TokenFile: u.TokenFile,
		ClientCertificate: u.ClientCertificate, ClientCertificateData: len(u.ClientCertificateData),
		ClientKey: u.ClientKey, ClientKeyData: redact.Secret(u.ClientKeyData), Username: u.Username,
		Password: redact.Secret(u.Password), Exec: u.Exec, Impersonate: u.Impersonate}
	if u.AuthProvider != nil {
		v.AuthProvider = u.AuthProvider.Name
	}
	return v
}

// MarshalJSON writes the user with its secrets redacted.
func (u KubeconfigUser) MarshalJSON() ([]byte, error) { return json.Marshal(u.view()) }

// MarshalZerologObject logs the user with its secrets redacted.
func (u KubeconfigUser) MarshalZerologObject(e *zerolog.Event) {
	v := u.view()
	e.Str("file", v.File).Str("token", v.Token).Str("tokenFile", v.TokenFile).
		Str("clientCertificate", v.ClientCertificate).Int("clientCertificateDataBytes", v.ClientCertificateData).
		Str("clientKey", v.ClientKey).Str("clientKeyData", v.ClientKeyData).Str("username", v.Username).
		Str("password", v.Password).Str("as", v.Impersonate).Str("authProvider", v.AuthProvider)
	if u.Exec != nil {
		e.Object("exec", u.Exec)
	}
}

// String prints the plugin's command, never its args or env values.
func (e ExecConfig) String() string {
	return fmt.Sprintf("clientcmd.ExecConfig{APIVersion: %q, Command: %q, Args: %d, Env: %q, ProvideClusterInfo: %t}",
		e.APIVersion, e.Command, len(e.Args), e.envNames(), e.ProvideClusterInfo)
}

func (e ExecConfig) envNames() []string {
	names := make([]string, len(e.Env))
	for i, v := range e.Env {
		names[i] = v.Name
	}
	return names
}

// GoString redacts like String.
func (e ExecConfig) GoString() string { return e.String() }

// Format prints String for every verb.
func (e ExecConfig) Format(f fmt.State, verb rune) { redact.Format(f, verb, e.String()) }

// MarshalJSON writes what String shows: the number of args and the names
// of env variables, never their values.
func (e ExecConfig) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		APIVersion         string   `json:"apiVersion"`
		Command            string   `json:"command"`
		Args               int      `json:"args"`
		Env                []string `json:"env,omitempty"`
		ProvideClusterInfo bool     `json:"provideClusterInfo,omitempty"`
		InteractiveMode    string   `json:"interactiveMode,omitempty"`
	}{e.APIVersion, e.Command, len(e.Args), e.envNames(), e.ProvideClusterInfo, e.InteractiveMode})
}

// MarshalZerologObject logs what String shows.
func (e ExecConfig) MarshalZerologObject(ev *zerolog.Event) {
	ev.Str("apiVersion", e.APIVersion).Str("command", e.Command).Int("args", len(e.Args)).
		Strs("env", e.envNames()).Bool("provideClusterInfo", e.ProvideClusterInfo)
}

// String prints the variable's name only.
func (v ExecEnvVar) String() string { return v.Name + "=" + redact.Placeholder }

// GoString redacts like String.
func (v ExecEnvVar) GoString() string { return v.String() }

// Format prints String for every verb.
func (v ExecEnvVar) Format(f fmt.State, verb rune) { redact.Format(f, verb, v.String()) }

// MarshalJSON writes the name and the placeholder.
func (v ExecEnvVar) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]string{"name": v.Name, "value": redact.Secret(v.Value)})
}

// MarshalZerologObject logs the name and the placeholder.
func (v ExecEnvVar) MarshalZerologObject(e *zerolog.Event) {
	e.Str("name", v.Name).Str("value", redact.Secret(v.Value))
}

// String names the file, never the token.
func (t *TokenFile) String() string {
	return fmt.Sprintf("TokenFile(%s, %s)", t.path, redact.Placeholder)
}

// GoString redacts like String.
func (t *TokenFile) GoString() string { return t.String() }

// Format prints String for every verb.
func (t *TokenFile) Format(f fmt.State, verb rune) { redact.Format(f, verb, t.String()) }

// MarshalJSON writes the path, never the token.
func (t *TokenFile) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]string{"tokenFile": t.path})
}

// MarshalZerologObject logs the path, never the token.
func (t *TokenFile) MarshalZerologObject(e *zerolog.Event) { e.Str("tokenFile", t.path) }

// String names the user, never the password.
func (b BasicAuth) String() string {
	return fmt.Sprintf("BasicAuth(%q, %s)", b.Username, redact.Placeholder)
}

// GoString redacts like String.
func (b BasicAuth) GoString() string { return b.String() }

// Format prints String for every verb.
func (b BasicAuth) Format(f fmt.State, verb rune) { redact.Format(f, verb, b.String()) }

// MarshalJSON writes the user name and the placeholder.
func (b BasicAuth) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]string{"username": b.Username, "password": redact.Secret(b.Password)})
}

// MarshalZerologObject logs the user name and the placeholder.
func (b BasicAuth) MarshalZerologObject(e *zerolog.Event) {
	e.Str("username", b.Username).Str("password", redact.Secret(b.Password))
}

// String names the command, never args, env values or the credential.
func (e *ExecCredentials) String() string { return "ExecCredentials(" + e.cfg.String() + ")" }

// GoString redacts like String.
func (e *ExecCredentials) GoString() string { return e.String() }

// Format prints String for every verb.
func (e *ExecCredentials) Format(f fmt.State, verb rune) { redact.Format(f, verb, e.String()) }

// MarshalJSON writes the plugin's redacted config, never the credential.
func (e *ExecCredentials) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{"exec": e.cfg})
}

// MarshalZerologObject logs the plugin's redacted config.
func (e *ExecCredentials) MarshalZerologObject(ev *zerolog.Event) { ev.Object("exec", e.cfg) }
