package rest

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
)

// rcLostConn yields prefix, then fails the way a body fails when its
// HTTP/2 connection is lost (GOAWAY, a dead TCP connection, RST_STREAM).
type rcLostConn struct {
	r   io.Reader
	err error
}

func (c *rcLostConn) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if err == io.EOF {
		return n, c.err
	}
	return n, err
}

func (c *rcLostConn) Close() error { return nil }

// TestLostConnectionIsNoDecodeError: a body that fails mid-object because
// the connection was lost is a transport failure (ErrConnectionLost,
// wrapping the cause), never ErrDecode: the bytes were fine, the
// connection was not. Lists and watches alike.
func TestLostConnectionIsNoDecodeError(t *testing.T) {
	for _, cause := range []error{
		errors.New("http2: client connection lost"),
		errors.New("http2: server sent GOAWAY and closed the connection; LastStreamID=1, ErrCode=NO_ERROR"),
		io.ErrUnexpectedEOF, // a chunked HTTP/1.1 body cut short
	} {
		check := func(what string, err error) {
			t.Helper()
			if err == nil || errors.Is(err, api.ErrDecode) || !errors.Is(err, ErrConnectionLost) || !errors.Is(err, cause) {
				t.Errorf("%s cut by %q: err = %v, want ErrConnectionLost wrapping the cause, not ErrDecode", what, cause, err)
			}
		}
		list := &rcLostConn{r: strings.NewReader(`{"kind":"PodList","metadata":{"resourceVersion":"5"},"items":[{"metadata":{"name":"a"}},{"metad`), err: cause}
		_, err := DecodeList(list, decode.Raw(), func(*api.RawObject) error { return nil })
		check("a list", err)

		body := &rcLostConn{r: strings.NewReader(`{"type":"ADDED","object":{"metadata":{"name":"a"}}}{"type":"ADD`), err: cause}
		ctx, cancel := context.WithCancel(context.Background())
		src := newChunkedSource(ctx, clock.Real{}, body, 0, cancel)
		if _, err := src.next(); err != nil {
			t.Fatalf("first event: %v", err)
		}
		_, err = src.next()
		check("a watch", err)
		src.close()
		cancel()
	}
}
