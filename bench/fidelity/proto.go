package fidelity

import (
	"bytes"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/kcmlab/kcm/ctrl/deployment"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/api/protocodec"
)

// The protobuf forms. k8s.io/api's generated Marshal writes the bytes
// kube-apiserver serves as application/vnd.kubernetes.protobuf (it is the
// server's own encoder), so the checks below feed kcm those bytes, read
// kcm's output back with the generated Unmarshal, and judge with
// equality.Semantic as the JSON checks do — and, since the protobuf path
// promises bytes, compare kcm's template bytes with the generated
// Marshal's.

// DeploymentProto decodes a Deployment's message as kcm's typed informer
// on a protobuf client does, and keeps it as the cached version.
func (c *Cache) DeploymentProto(msg []byte) (*api.Deployment, error) {
	return keep(c, c.deployments, "a Deployment message", func() (*api.Deployment, error) {
		return decodeProto(c.dCodec, "Deployment", msg)
	})
}

// ReplicaSetProto is DeploymentProto for a ReplicaSet.
func (c *Cache) ReplicaSetProto(msg []byte) (*api.ReplicaSet, error) {
	return keep(c, c.replicaSets, "a ReplicaSet message", func() (*api.ReplicaSet, error) {
		return decodeProto(c.rsCodec, "ReplicaSet", msg)
	})
}

// decodeProto decodes an apps/v1 kind's message with codec, which must
// read protobuf.
func decodeProto[T api.Object](codec decode.Codec[T], kind string, msg []byte) (T, error) {
	p, ok := decode.AsProto(codec)
	if !ok {
		var zero T
		return zero, fmt.Errorf("%w: kcm's %s cache does not read protobuf", ErrDiffers, kind)
	}
	return p.DecodeProto(api.TypeMeta{APIVersion: "apps/v1", Kind: kind}, msg)
}

// CheckReplicaSetProto sends want's message (generated Marshal) through
// kcm's cache and deployment.NewReplicaSetFor, and checks that the body
// is a protobuf message whose template, decoded with k8s.io/api, is
// semantically want's (the hash label aside), and whose template bytes
// are the generated Marshal of want's template with the hash label added.
// It returns the ReplicaSet's message with a uid, for CheckPodProto.
func CheckReplicaSetProto(c *Cache, want *appsv1.Deployment) ([]byte, error) {
	in, err := want.Marshal()
	if err != nil {
		return nil, err
	}
	kd, err := c.DeploymentProto(in)
	if err != nil {
		return nil, err
	}
	body, err := deployment.NewReplicaSetFor(kd, 3, 1)
	if err != nil {
		return nil, fmt.Errorf("kcm's ReplicaSet for %s: %w", kd.Key(), err)
	}
	if !body.IsProto() {
		return nil, fmt.Errorf("%w: the ReplicaSet of a Deployment read as protobuf is not a protobuf body", ErrDiffers)
	}
	rb := body.Proto()
	var rs appsv1.ReplicaSet
	if err := rs.Unmarshal(rb); err != nil {
		return nil, fmt.Errorf("k8s.io/api decode of kcm's ReplicaSet message: %w", err)
	}
	hash := rs.Spec.Template.Labels[hashLabel]
	if hash == "" {
		return nil, fmt.Errorf("%w: the ReplicaSet's template has no %s label", ErrDiffers, hashLabel)
	}
	got := rs.Spec.Template.DeepCopy()
	delete(got.Labels, hashLabel)
	if !equality.Semantic.DeepEqual(got, &want.Spec.Template) {
		return nil, fmt.Errorf("%w: ReplicaSet template (protobuf, Go, semantic): %s", ErrDiffers, goDiff(&want.Spec.Template, got))
	}
	labelled := want.Spec.Template.DeepCopy()
	if labelled.Labels == nil {
		labelled.Labels = map[string]string{}
	}
	labelled.Labels[hashLabel] = hash
	wantBytes, err := labelled.Marshal()
	if err != nil {
		return nil, err
	}
	gotBytes, _, err := protocodec.Field(rb, 2, 3)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(gotBytes, wantBytes) {
		return nil, fmt.Errorf("%w: ReplicaSet template (protobuf bytes): %d bytes, the generated Marshal %d", ErrDiffers,
			len(gotBytes), len(wantBytes))
	}
	rs.UID = k8stypes.UID("uid-rs-" + kd.Name)
	return rs.Marshal()
}

// CheckPodProto sends the ReplicaSet message rb through kcm's cache and
// replicaset.NewPodFor, and checks the pod message: decoded with
// k8s.io/api its spec is the template's (semantically) and its labels,
// annotations and finalizers are the template's; its spec bytes are the
// template's spec bytes.
func CheckPodProto(c *Cache, rb []byte) error {
	pb, err := checkPodSemantic(rb, c.ReplicaSetProto, func(b []byte, v any) error {
		return v.(interface{ Unmarshal([]byte) error }).Unmarshal(b)
	}, "protobuf")
	if err != nil {
		return err
	}
	ps, _, err := protocodec.Field(pb, 2)
	if err != nil {
		return err
	}
	ts, _, err := protocodec.Field(rb, 2, 3, 2)
	if err != nil {
		return err
	}
	if !bytes.Equal(ps, ts) {
		return fmt.Errorf("%w: pod spec (protobuf bytes) is not the template's", ErrDiffers)
	}
	return nil
}

// CheckCompareProto is CheckCompare on the protobuf forms: for a and b as
// the generated Marshal writes them, deployment.EqualIgnoreHashProto says
// equal exactly when equality.Semantic.DeepEqual does with the hash label
// removed from both.
func CheckCompareProto(a, b *corev1.PodTemplateSpec) error {
	return CheckCompareProtoWith(a, b, deployment.EqualIgnoreHashProto)
}

// CheckCompareProtoWith is CheckCompareProto of another comparison of
// template messages, so that the check itself can be shown to fail.
func CheckCompareProtoWith(a, b *corev1.PodTemplateSpec, equal func(a, b []byte) (bool, error)) error {
	ma, err := a.Marshal()
	if err != nil {
		return err
	}
	mb, err := b.Marshal()
	if err != nil {
		return err
	}
	ca, cb := a.DeepCopy(), b.DeepCopy()
	delete(ca.Labels, hashLabel)
	delete(cb.Labels, hashLabel)
	k8s := equality.Semantic.DeepEqual(ca, cb)
	kcm, err := equal(ma, mb)
	if err != nil {
		return fmt.Errorf("%w: EqualIgnoreHashProto: %w", ErrDiffers, err)
	}
	if kcm != k8s {
		return fmt.Errorf("%w: EqualIgnoreHashProto = %v, Kubernetes says %v: %s", ErrDiffers, kcm, k8s, goDiff(ca, cb))
	}
	return nil
}
