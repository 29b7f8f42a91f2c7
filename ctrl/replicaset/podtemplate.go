package replicaset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/kcmlab/kcm/ctrl/controllerref"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/api/protocodec"
)

// ErrNoLabels: the template has no labels, so a pod made from it could
// never be matched by the selector (Kubernetes refuses to create it too).
var ErrNoLabels = errors.New("unable to create pods, no labels")

// podMeta is the metadata of a pod stamped from a template: what
// Kubernetes' GetPodFromTemplate copies, and nothing else.
type podMeta struct {
	GenerateName    string               `json:"generateName"`
	Namespace       string               `json:"namespace"`
	Labels          map[string]string    `json:"labels,omitempty"`
	Annotations     map[string]string    `json:"annotations,omitempty"`
	Finalizers      []string             `json:"finalizers,omitempty"`
	OwnerReferences []api.OwnerReference `json:"ownerReferences"`
}

// podBody is the JSON a pod is created from. Spec is the template's spec
// byte for byte, so that fields kcm's PodSpec does not model (affinity,
// security contexts, probes, ...) reach the pod.
type podBody struct {
	APIVersion string          `json:"apiVersion"`
	Kind       string          `json:"kind"`
	Metadata   podMeta         `json:"metadata"`
	Spec       json.RawMessage `json:"spec"`
}

// rawTemplateSpec finds spec.template.spec in the JSON the ReplicaSet was
// read from.
type rawTemplateSpec struct {
	Spec struct {
		Template struct {
			Spec json.RawMessage `json:"spec"`
		} `json:"template"`
	} `json:"spec"`
}

// newPodJSON returns the JSON of a pod for rs: generateName "<rs name>-",
// the template's labels, annotations and finalizers, rs as controller
// (apps/v1 ReplicaSet, blockOwnerDeletion), and the template's spec as rs
// was read from the apiserver — or, for a ReplicaSet built in code, as
// kcm's struct encodes it.
func newPodJSON(rs *api.ReplicaSet) ([]byte, error) {
	t := &rs.Spec.Template
	if len(t.Labels) == 0 {
		return nil, ErrNoLabels
	}
	spec, err := templateSpec(rs)
	if err != nil {
		return nil, err
	}
	return json.Marshal(&podBody{
		APIVersion: "v1", Kind: "Pod",
		Metadata: podMeta{
			GenerateName: generateName(rs.Name), Namespace: rs.Namespace,
			Labels: t.Labels, Annotations: t.Annotations, Finalizers: t.Finalizers,
			OwnerReferences: []api.OwnerReference{controllerref.NewControllerRef(&rs.ObjectMeta, "apps/v1", "ReplicaSet")},
		},
		Spec: spec,
	})
}

// NewPodFor returns the body of the pod a sync of rs creates: for rs read
// as protobuf (rs.IsProto), the Pod's protobuf message (newPodProto);
// otherwise its JSON (newPodJSON). Either way the template's spec is as
// rs was read, member for member or byte for byte. It is for tests and
// tools that check that a pod is its template (bench/'s fidelity tests).
func NewPodFor(rs *api.ReplicaSet) ([]byte, error) {
	if rs.IsProto() {
		return newPodProto(rs)
	}
	return newPodJSON(rs)
}

// podType is the apiVersion and kind of a pod.
var podType = api.TypeMeta{APIVersion: "v1", Kind: "Pod"}

// newPodBody returns the pod to create for rs, as the RawObject the pod
// client sends: a protobuf message for rs read as protobuf, else JSON.
// Each call gives a RawObject of its own.
func newPodBody(rs *api.ReplicaSet) (func() (*api.RawObject, error), error) {
	if rs.IsProto() {
		msg, err := newPodProto(rs)
		if err != nil {
			return nil, err
		}
		wire, _ := decode.AsProto(decode.Wire())
		return func() (*api.RawObject, error) { return wire.DecodeProto(podType, msg) }, nil
	}
	body, err := newPodJSON(rs)
	if err != nil {
		return nil, err
	}
	return func() (*api.RawObject, error) { return api.DecodeRawObject(body) }, nil
}

// Field numbers of the messages a pod is built from (k8s.io/api's
// generated.proto; protocodec's pbtags.txt).
const (
	pbObjectMeta   = 1 // Pod.metadata
	pbObjectSpec   = 2 // ReplicaSet.spec, Pod.spec
	pbSpecTemplate = 3 // ReplicaSetSpec.template
	pbTemplateSpec = 2 // PodTemplateSpec.spec
)

// newPodProto returns the protobuf message of a pod for rs read as
// protobuf: the metadata newPodJSON gives (kcm's struct, encoded as
// upstream's Marshal encodes it) and, as spec, the template's PodSpec
// message from rs's message byte for byte, so that fields kcm's PodSpec
// does not model reach the pod. No status, as in the JSON body.
func newPodProto(rs *api.ReplicaSet) ([]byte, error) {
	t := &rs.Spec.Template
	if len(t.Labels) == 0 {
		return nil, ErrNoLabels
	}
	whole, err := rs.OriginalProto()
	if err != nil {
		return nil, fmt.Errorf("reading the pod template of %s: %w", rs.Key(), err)
	}
	spec, found, err := protocodec.Field(whole, pbObjectSpec, pbSpecTemplate, pbTemplateSpec)
	if err != nil {
		return nil, fmt.Errorf("reading the pod template of %s: %w", rs.Key(), err)
	}
	if !found {
		if spec, err = protocodec.Marshal(&t.Spec); err != nil {
			return nil, err
		}
	}
	meta, err := protocodec.Marshal(&api.ObjectMeta{
		GenerateName: generateName(rs.Name), Namespace: rs.Namespace,
		Labels: t.Labels, Annotations: t.Annotations, Finalizers: t.Finalizers,
		OwnerReferences: []api.OwnerReference{controllerref.NewControllerRef(&rs.ObjectMeta, "apps/v1", "ReplicaSet")},
	})
	if err != nil {
		return nil, err
	}
	msg, err := protocodec.SetField(nil, meta, pbObjectMeta)
	if err != nil {
		return nil, err
	}
	return protocodec.SetField(msg, spec, pbObjectSpec)
}

// templateSpec returns the raw bytes of the template's spec.
func templateSpec(rs *api.ReplicaSet) (json.RawMessage, error) {
	if raw := rs.Raw(); raw != nil {
		var r rawTemplateSpec
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("reading the pod template of %s: %w", rs.Key(), err)
		}
		if s := bytes.TrimSpace(r.Spec.Template.Spec); len(s) > 0 && !bytes.Equal(s, []byte("null")) {
			return s, nil
		}
	}
	return json.Marshal(&rs.Spec.Template.Spec)
}

// maxNameLength is the longest object name (a DNS subdomain).
const maxNameLength = 253

// generateName is the pods' name prefix: "<rs name>-", or the bare name
// when the dash would make it too long to be a name (Kubernetes'
// getPodsPrefix).
func generateName(rs string) string {
	if len(rs)+1 > maxNameLength {
		return rs
	}
	return rs + "-"
}
