package rest

import "net/http"

// Anonymous returns a client for the same server, with the same options,
// that presents no credentials at all: no client certificate in the TLS
// handshake and no Authorization header (client-go's
// AnonymousClientConfig). It runs on a transport of its own, since a
// connection's client certificate is fixed at its handshake; the clients
// derived from it with WithOptions and WithCredentials share that
// transport. kube-controller-manager starts from such a config for
// --use-service-account-credentials, so that a controller's requests carry
// its ServiceAccount's token and nothing of the manager's identity (the
// apiserver would take a client certificate before any token).
func (c *Client) Anonymous() *Client {
	n := *c
	tc := c.tls.Clone()
	tc.GetClientCertificate = nil
	tc.Certificates = nil
	n.tls = tc
	n.auth = auth{}
	n.hc = &http.Client{Transport: &authTransport{next: newTransport(tc.Clone(), c.transport),
		userAgent: c.userAgent, origin: originOf(c.base)}}
	return &n
}

// WithCredentials returns a client on the same transport, rate limiter and
// User-Agent whose Authorization header comes from creds; nil means none.
// Only the header changes: the TLS client certificate belongs to the
// transport (creds.ClientCertificate is not asked), so credentials of the
// bearer kind go on a client from Anonymous. A 401 answer calls
// creds.Invalidate, and the request is tried once more with fresh
// credentials, as for the Credentials of a Config.
func (c *Client) WithCredentials(creds Credentials) *Client {
	n := *c
	at := *c.hc.Transport.(*authTransport)
	n.auth = newAuth(creds)
	at.auth = n.auth
	n.hc = &http.Client{Transport: &at}
	return &n
}
