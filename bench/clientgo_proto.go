package bench

import (
	"fmt"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// NewClientGoProtoFor is NewClientGoFor speaking protobuf, as
// kube-controller-manager does by default (--kube-api-content-type
// application/vnd.kubernetes.protobuf): the client-go an operator
// compares kcm with. Only for the real-apiserver benchmark's
// client-go/protobuf variants; podgen serves JSON only. strip adds the
// transform that drops managedFields, as kube-controller-manager's
// informers have.
func NewClientGoProtoFor(name string, cfg *rest.Config, strip bool) (Engine, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS = -1
	cfg.ContentConfig = rest.ContentConfig{ContentType: "application/vnd.kubernetes.protobuf",
		AcceptContentTypes: "application/vnd.kubernetes.protobuf,application/json"}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("client-go clientset: %w", err)
	}
	return &clientGoEngine{name: name, strip: strip, cs: cs}, nil
}
