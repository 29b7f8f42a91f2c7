package testenv

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// apiClient is the minimal HTTPS client testenv needs for its own calls to
// kube-apiserver (readiness, namespaces). Everything else belongs to package
// rest; testenv must not depend on it beyond rest.Config, because rest's
// own tests run against this cluster.
type apiClient struct {
	host  string
	token string
	http  *http.Client
}

// newAPIClient returns a client that trusts caPEM and sends token.
func newAPIClient(host string, caPEM []byte, token string) (*apiClient, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, errors.New("testenv: serving certificate holds no PEM certificate")
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return &apiClient{host: host, token: token, http: &http.Client{Transport: tr, Timeout: 30 * time.Second}}, nil
}

// StatusError is a non-2xx answer from kube-apiserver.
type StatusError struct {
	Method, Path string
	Code         int
	Body         string // the response body, at most 4 KiB
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("%s %s: HTTP %d: %s", e.Method, e.Path, e.Code, e.Body)
}

// do sends a JSON request and decodes a JSON answer into out (if not nil).
// Non-2xx answers are returned as *StatusError.
func (c *apiClient) do(ctx context.Context, method, path string, in, out any) error {
	return c.send(ctx, method, path, "", in, out)
}

// mergePatch sends a JSON merge patch (RFC 7386) to path.
func (c *apiClient) mergePatch(ctx context.Context, path string, patch, out any) error {
	return c.send(ctx, http.MethodPatch, path, "application/merge-patch+json", patch, out)
}

// send is do with the request's Content-Type ("" means JSON).
func (c *apiClient) send(ctx context.Context, method, path, contentType string, in, out any) error {
	req, err := newJSONRequest(ctx, method, c.host+path, in)
	if err != nil {
		return err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return fmt.Errorf("%s %s: read answer: %w", method, path, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		if len(data) > 4096 {
			data = data[:4096]
		}
		return &StatusError{Method: method, Path: path, Code: resp.StatusCode, Body: strings.TrimSpace(string(data))}
	}
	if out == nil {
		return nil
	}
	if s, ok := out.(*string); ok {
		*s = string(data)
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s %s: decode answer: %w", method, path, err)
	}
	return nil
}

// close drops idle keep-alive connections, ending their goroutines.
func (c *apiClient) close() { c.http.CloseIdleConnections() }

// newJSONRequest builds a request whose body, if in is not nil, is in as
// JSON. testenv's two small HTTP clients (apiserver and etcd gateway) share it.
func newJSONRequest(ctx context.Context, method, url string, in any) (*http.Request, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return nil, err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, nil
}
