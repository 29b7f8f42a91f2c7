package authdelegate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/kcmlab/kcm/kube/rest"
)

// getterFunc is a Getter.
type getterFunc func(ctx context.Context, path string) ([]byte, error)

func (f getterFunc) RawGet(ctx context.Context, path string) ([]byte, error) { return f(ctx, path) }

// TestLookup reads kube-apiserver's extension-apiserver-authentication
// as it writes it (PEM strings, JSON lists); a ConfigMap that does not
// exist says nothing, and any other failure is an error.
func TestLookup(t *testing.T) {
	cm := `{"data":{"client-ca-file":"CLIENT","requestheader-client-ca-file":"PROXY",
		"requestheader-allowed-names":"[\"front-proxy-client\"]","requestheader-username-headers":"[\"X-Remote-User\"]",
		"requestheader-group-headers":"[\"X-Remote-Group\"]","requestheader-extra-headers-prefix":"[\"X-Remote-Extra-\"]",
		"requestheader-uid-headers":""}}`
	got, err := lookup(context.Background(), getterFunc(func(_ context.Context, path string) ([]byte, error) {
		if path != "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication" {
			return nil, fmt.Errorf("path %s", path)
		}
		return []byte(cm), nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	if string(got.clientCA) != "CLIENT" || string(got.requestHeaderCA) != "PROXY" ||
		!slices.Equal(got.headers.allowedNames, []string{"front-proxy-client"}) ||
		!slices.Equal(got.headers.usernameHeaders, []string{"X-Remote-User"}) ||
		!slices.Equal(got.headers.groupHeaders, []string{"X-Remote-Group"}) ||
		!slices.Equal(got.headers.extraHeaderPrefixes, []string{"X-Remote-Extra-"}) || got.headers.uidHeaders != nil {
		t.Errorf("lookup = %+v", got)
	}
	notFound := &rest.StatusError{Status: rest.Status{Code: 404, Reason: "NotFound"}}
	if !errors.Is(notFound, rest.ErrNotFound) {
		t.Fatal("test setup: the 404 is not rest.ErrNotFound")
	}
	if got, err := lookup(context.Background(), getterFunc(func(context.Context, string) ([]byte, error) { return nil, notFound })); err != nil ||
		got.clientCA != nil {
		t.Errorf("missing ConfigMap: %+v, %v; want nothing and no error", got, err)
	}
	if _, err := lookup(context.Background(), getterFunc(func(context.Context, string) ([]byte, error) { return nil, errDown })); !errors.Is(err, errDown) {
		t.Errorf("apiserver down: %v, want %v", err, errDown)
	}
	if _, err := lookup(context.Background(), getterFunc(func(context.Context, string) ([]byte, error) {
		return []byte(`{"data":{"requestheader-allowed-names":"not json"}}`), nil
	})); err == nil {
		t.Error("a malformed list was accepted")
	}
}
