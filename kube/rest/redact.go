package rest

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/kcmlab/kcm/kube/internal/redact"
	"github.com/rs/zerolog"
)

// How the types that carry secrets (Config, TLSConfig, StaticToken, and the
// Client built from them) print. Every fmt verb goes through Format, so %#v
// and %x cannot fall back to dumping fields; json.Marshal (and with it
// zerolog's Interface) and zerolog's Object see redacted views. What they
// show: where the server is and which kind of credentials are used, never
// a token, a password or key bytes. TestNothingPrintsSecrets checks every
// exported type of the package.

// authKind names the kind of credentials, never their value.
func authKind(c Credentials) string {
	if c == nil {
		return "anonymous"
	}
	return fmt.Sprintf("%T", c)
}

// String describes the config without secrets.
func (c Config) String() string {
	return fmt.Sprintf("rest.Config{Host: %q, Source: %q, Auth: %s, CA: %d bytes, ClientCert: %t, Insecure: %t}",
		c.Host, c.Source, authKind(c.Credentials), len(c.TLS.CAData), len(c.TLS.CertData) > 0, c.TLS.Insecure)
}

// GoString keeps %#v from dumping key material.
func (c Config) GoString() string { return c.String() }

// Format prints String for every verb.
func (c Config) Format(f fmt.State, verb rune) { redact.Format(f, verb, c.String()) }

// configView is what Config marshals to.
type configView struct {
	Host      string        `json:"host"`
	Source    string        `json:"source,omitempty"`
	Auth      string        `json:"auth"`
	TLS       TLSConfig     `json:"tls"`
	QPS       float32       `json:"qps,omitempty"`
	Burst     int           `json:"burst,omitempty"`
	UserAgent string        `json:"userAgent,omitempty"`
	Timeout   time.Duration `json:"timeout,omitempty"`
	// ContentType is Config.ContentType.
	ContentType string `json:"contentType,omitempty"`
}

// MarshalJSON writes the config without secrets: the credentials' kind,
// not their value.
func (c Config) MarshalJSON() ([]byte, error) {
	return json.Marshal(configView{Host: c.Host, Source: c.Source, Auth: authKind(c.Credentials), TLS: c.TLS,
		QPS: c.QPS, Burst: c.Burst, UserAgent: c.UserAgent, Timeout: c.Timeout,
		ContentType: c.ContentType})
}

// MarshalZerologObject logs the config without secrets.
func (c Config) MarshalZerologObject(e *zerolog.Event) {
	e.Str("host", c.Host).Str("source", c.Source).Str("auth", authKind(c.Credentials)).Object("tls", c.TLS)
}

// String describes the TLS settings without key material.
func (t TLSConfig) String() string {
	return fmt.Sprintf("rest.TLSConfig{CA: %d bytes, ClientCert: %t, ClientKey: %s, Insecure: %t, ServerName: %q}",
		len(t.CAData), len(t.CertData) > 0, redact.Secret(string(t.KeyData)), t.Insecure, t.ServerName)
}

// GoString keeps %#v from dumping key material.
func (t TLSConfig) GoString() string { return t.String() }

// Format prints String for every verb.
func (t TLSConfig) Format(f fmt.State, verb rune) { redact.Format(f, verb, t.String()) }

// tlsView is what TLSConfig marshals to: sizes and flags, no bytes.
type tlsView struct {
	CABytes    int    `json:"caBytes"`
	ClientCert bool   `json:"clientCert"`
	ClientKey  string `json:"clientKey,omitempty"`
	Insecure   bool   `json:"insecure,omitempty"`
	ServerName string `json:"serverName,omitempty"`
}

func (t TLSConfig) view() tlsView {
	return tlsView{CABytes: len(t.CAData), ClientCert: len(t.CertData) > 0, ClientKey: redact.Secret(string(t.KeyData)),
		Insecure: t.Insecure, ServerName: t.ServerName}
}

// MarshalJSON writes sizes and flags, never certificate or key bytes.
func (t TLSConfig) MarshalJSON() ([]byte, error) { return json.Marshal(t.view()) }

// MarshalZerologObject logs sizes and flags, never key bytes.
func (t TLSConfig) MarshalZerologObject(e *zerolog.Event) {
	v := t.view()
	e.Int("caBytes", v.CABytes).Bool("clientCert", v.ClientCert).Str("clientKey", v.ClientKey).
		Bool("insecure", v.Insecure).Str("serverName", v.ServerName)
}

// String redacts the token.
func (StaticToken) String() string { return "StaticToken(" + redact.Placeholder + ")" }

// GoString redacts the token.
func (t StaticToken) GoString() string { return t.String() }

// Format prints String for every verb.
func (t StaticToken) Format(f fmt.State, verb rune) { redact.Format(f, verb, t.String()) }

// MarshalJSON writes the placeholder, never the token.
func (t StaticToken) MarshalJSON() ([]byte, error) { return json.Marshal(redact.Secret(string(t))) }

// MarshalZerologObject logs the placeholder, never the token.
func (t StaticToken) MarshalZerologObject(e *zerolog.Event) { e.Str("token", redact.Secret(string(t))) }

// String names the server and the User-Agent; the credentials stay hidden.
func (c Client) String() string {
	return fmt.Sprintf("rest.Client{Host: %q, UserAgent: %q, Auth: %t}", c.base.String(), c.userAgent, !c.auth.anonymous())
}

// GoString prints like String.
func (c Client) GoString() string { return c.String() }

// Format prints String for every verb.
func (c Client) Format(f fmt.State, verb rune) { redact.Format(f, verb, c.String()) }

// MarshalJSON writes what String shows.
func (c Client) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{"host": c.base.String(), "userAgent": c.userAgent, "auth": !c.auth.anonymous()})
}

// MarshalZerologObject logs what String shows.
func (c Client) MarshalZerologObject(e *zerolog.Event) {
	e.Str("host", c.base.String()).Str("userAgent", c.userAgent).Bool("auth", !c.auth.anonymous())
}
