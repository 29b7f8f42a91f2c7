package deployment

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"maps"
	"strconv"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/protocodec"
)

// Pod templates read as protobuf. A Deployment or ReplicaSet read from a
// protobuf client keeps the message it was read from; its template is
// the PodTemplateSpec message in it (spec.template: field 3 of the spec,
// field 2 of the object, in both kinds), as kube-apiserver wrote it, with
// every field kcm does not model.
//
// kube-apiserver encodes deterministically from its Go struct: fields in
// number order, map entries sorted by key, nil and empty slices and maps
// both absent, a non-nil pointer to an empty struct present with length 0,
// a non-pointer struct or string always present. So the message of a
// template, once the pod-template-hash label is taken out of its
// metadata, is a canonical form of its Go value: two templates the
// apiserver wrote are equal as Kubernetes' semantic equality holds their
// Go values equal exactly when these bytes are equal — with the one
// exception the JSON path has too: semantic equality compares resource
// quantities by amount, and the bytes by spelling (the apiserver writes
// a quantity in the canonical form of the format it was given, so "1k"
// and "1000" are one spelling, "1e3" another). bench/fidelity checks the
// rule against equality.Semantic on random templates, with the messages
// k8s.io/api's generated code writes.

// Field numbers of the messages a template is found in (k8s.io/api's
// generated.proto; protocodec's pbtags.txt).
const (
	pbObjectSpec   = 2 // Deployment.spec, ReplicaSet.spec
	pbSpecTemplate = 3 // DeploymentSpec.template, ReplicaSetSpec.template
	pbTemplateMeta = 1 // PodTemplateSpec.metadata
)

// templateProto returns spec.template of the message of a Deployment or
// ReplicaSet (an empty message when it has none).
func templateProto(msg []byte) ([]byte, error) {
	t, _, err := protocodec.Field(msg, pbObjectSpec, pbSpecTemplate)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTemplate, err)
	}
	return t, nil
}

// templateLabel returns the template message t with label k set to v, or
// removed when remove is set (t itself when there is nothing to remove).
// The metadata is rewritten by protocodec.MarshalMerge, so the result is
// the bytes upstream's Marshal gives for the template with that label map
// (entries in key order, the labels field gone with its last entry), and
// every other field keeps its bytes.
func templateLabel(t []byte, k, v string, remove bool) ([]byte, error) {
	meta, _, err := protocodec.Field(t, pbTemplateMeta)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTemplate, err)
	}
	var before api.ObjectMeta
	if err := protocodec.Unmarshal(meta, &before); err != nil {
		return nil, fmt.Errorf("%w: template metadata: %w", ErrTemplate, err)
	}
	if _, ok := before.Labels[k]; remove && !ok {
		return t, nil
	}
	after := before
	after.Labels = maps.Clone(before.Labels)
	if remove {
		delete(after.Labels, k)
	} else {
		if after.Labels == nil {
			after.Labels = map[string]string{}
		}
		after.Labels[k] = v
	}
	m2, err := protocodec.MarshalMerge(meta, &before, &after)
	if err != nil {
		return nil, fmt.Errorf("%w: template metadata: %w", ErrTemplate, err)
	}
	out, err := protocodec.SetField(t, m2, pbTemplateMeta)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTemplate, err)
	}
	return out, nil
}

// withoutHashProto is the template message t without the pod-template-hash
// label: its canonical form.
func withoutHashProto(t []byte) ([]byte, error) {
	return templateLabel(t, PodTemplateHashLabel, "", true)
}

// EqualIgnoreHashProto is EqualIgnoreHash for templates read as protobuf:
// a and b are PodTemplateSpec messages as kube-apiserver wrote them, equal
// when their bytes are, the pod-template-hash label taken out of both
// (see the comment at the top of hashproto.go for what that means against
// Kubernetes' semantic equality). A malformed message is an error.
func EqualIgnoreHashProto(a, b []byte) (bool, error) {
	ca, err := withoutHashProto(a)
	if err != nil {
		return false, err
	}
	cb, err := withoutHashProto(b)
	if err != nil {
		return false, err
	}
	return bytes.Equal(ca, cb), nil
}

// ComputeHashProto is ComputeHash for a template read as protobuf:
// FNV-32a over its canonical message (the hash label taken out),
// followed, when collisionCount is set, by its value as 8 little-endian
// bytes, spelt in SafeEncodeString's alphabet.
//
// The hash, and so the name of a new ReplicaSet, depends on the encoding
// the controller reads: the same template hashes one way from its JSON
// and another from its message (and kube-controller-manager hashes a
// third way). That is harmless because the current ReplicaSet is found by
// comparing templates (EqualIgnoreHash, EqualIgnoreHashProto), never by
// name: a controller that switches encodings finds the ReplicaSets it
// made on the other one and starts no rollout.
func ComputeHashProto(template []byte, collisionCount *int32) (string, error) {
	c, err := withoutHashProto(template)
	if err != nil {
		return "", err
	}
	h := fnv.New32a()
	h.Write(c)
	if collisionCount != nil {
		buf := make([]byte, 8)
		binary.LittleEndian.PutUint32(buf, uint32(*collisionCount))
		h.Write(buf)
	}
	return safeEncodeString(strconv.FormatUint(uint64(h.Sum32()), 10)), nil
}
