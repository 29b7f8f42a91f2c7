package rest

import (
	"context"
	"net/http"
)

// RawPost sends body, JSON, to an absolute API path (e.g.
// "/apis/authentication.k8s.io/v1/tokenreviews") and returns the body of
// the answer. It is retried only where the server cannot have acted, as
// any write.
func (c *Client) RawPost(ctx context.Context, path string, body []byte) ([]byte, error) {
	return c.doBytes(ctx, &request{verb: http.MethodPost, path: path, body: body, contentType: contentTypeJSON, accept: acceptJSON})
}
