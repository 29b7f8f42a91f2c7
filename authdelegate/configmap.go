package authdelegate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/kcmlab/kcm/kube/rest"
)

// The ConfigMap in which kube-apiserver publishes how it authenticates
// clients (its --client-ca-file and --requestheader-* flags), for
// delegating servers to trust the same (k8s.io/apiserver's
// authenticationConfigMapNamespace/Name).
const (
	AuthenticationConfigMapNamespace = "kube-system"
	AuthenticationConfigMapName      = "extension-apiserver-authentication"
)

// clusterAuthentication is what the ConfigMap says; a missing key is an
// empty field.
type clusterAuthentication struct {
	clientCA        []byte
	requestHeaderCA []byte
	headers         headerConfig
}

// Getter reads an absolute API path: kube/rest's Client.RawGet.
type Getter interface {
	RawGet(ctx context.Context, path string) ([]byte, error)
}

// lookup reads the ConfigMap. A ConfigMap that does not exist says
// nothing (no client CA, no front proxy); any other failure is an error.
func lookup(ctx context.Context, get Getter) (clusterAuthentication, error) {
	ctx, cancel := context.WithTimeout(ctx, ReviewTimeout)
	defer cancel()
	path := "/api/v1/namespaces/" + AuthenticationConfigMapNamespace + "/configmaps/" + AuthenticationConfigMapName
	data, err := get.RawGet(ctx, path)
	if errors.Is(err, rest.ErrNotFound) {
		return clusterAuthentication{}, nil
	}
	if err != nil {
		return clusterAuthentication{}, fmt.Errorf("looking up %s/%s: %w", AuthenticationConfigMapNamespace, AuthenticationConfigMapName, err)
	}
	var cm struct {
		Data map[string]string `json:"data"`
	}
	if err := json.Unmarshal(data, &cm); err != nil {
		return clusterAuthentication{}, fmt.Errorf("decoding %s/%s: %w", AuthenticationConfigMapNamespace, AuthenticationConfigMapName, err)
	}
	out := clusterAuthentication{clientCA: []byte(cm.Data["client-ca-file"]), requestHeaderCA: []byte(cm.Data["requestheader-client-ca-file"])}
	for key, dst := range map[string]*[]string{
		"requestheader-allowed-names":        &out.headers.allowedNames,
		"requestheader-username-headers":     &out.headers.usernameHeaders,
		"requestheader-uid-headers":          &out.headers.uidHeaders,
		"requestheader-group-headers":        &out.headers.groupHeaders,
		"requestheader-extra-headers-prefix": &out.headers.extraHeaderPrefixes,
	} {
		v, ok := cm.Data[key]
		if !ok || v == "" {
			continue
		}
		if err := json.Unmarshal([]byte(v), dst); err != nil {
			return clusterAuthentication{}, fmt.Errorf("%s/%s: key %s: %w", AuthenticationConfigMapNamespace, AuthenticationConfigMapName, key, err)
		}
	}
	return out, nil
}
