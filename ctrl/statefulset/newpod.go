package statefulset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/kcmlab/kcm/ctrl/controllerref"
	"github.com/kcmlab/kcm/ctrl/history"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
)

// ErrTemplate wraps the errors of reading a StatefulSet's pod template or
// volumeClaimTemplates from its JSON.
var ErrTemplate = errors.New("statefulset: bad template")

// The pods and claims a StatefulSet makes are built as JSON, not from
// kcm's structs: PodSpec and PersistentVolumeClaim model part of their
// kinds, and rest's Create encodes a struct as it is. So the template is
// taken from the JSON the set was read from (api.ObjectMeta.Original),
// member for member — fields kcm does not model (affinity, probes,
// security contexts) and empty objects ("emptyDir": {}) included — and
// only the members the controller sets are replaced. The typed objects
// returned are decoded from that JSON and keep it as their Original, so
// that CreateStatefulPod sends it.

// setSpec returns the members of set's spec as the apiserver sent them;
// a set built in code (no JSON) is encoded from its typed fields; a set
// read as protobuf has no JSON to take them from (history.ErrProtobufSet).
func setSpec(set *api.StatefulSet) (map[string]json.RawMessage, error) {
	if set.IsProto() {
		return nil, fmt.Errorf("%w: %w: %s", ErrTemplate, history.ErrProtobufSet, set.Key())
	}
	raw, err := set.Original()
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrTemplate, set.Key(), err)
	}
	if raw == nil {
		if raw, err = json.Marshal(set); err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrTemplate, set.Key(), err)
		}
	}
	var whole struct {
		Spec map[string]json.RawMessage `json:"spec"`
	}
	if err := json.Unmarshal(raw, &whole); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrTemplate, set.Key(), err)
	}
	return whole.Spec, nil
}

// members decodes a JSON object into its members; null or absent is an
// empty object.
func members(raw json.RawMessage) (map[string]json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(raw)) == 0 {
		return m, nil
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	if m == nil { // null
		m = map[string]json.RawMessage{}
	}
	return m, nil
}

// podMeta is the metadata of a StatefulSet's pod: what Kubernetes'
// GetPodFromTemplate copies from the template (labels, annotations,
// finalizers), the set as controller, a generateName of "<set>-" (which
// GetPodFromTemplate sets and the apiserver keeps beside the name), and
// the name and namespace of the pod's identity.
type podMeta struct {
	Name            string               `json:"name"`
	GenerateName    string               `json:"generateName,omitempty"`
	Namespace       string               `json:"namespace,omitempty"`
	Labels          map[string]string    `json:"labels,omitempty"`
	Annotations     map[string]string    `json:"annotations,omitempty"`
	Finalizers      []string             `json:"finalizers,omitempty"`
	OwnerReferences []api.OwnerReference `json:"ownerReferences"`
}

// podBody is the JSON a pod is created from; Spec is the template's spec
// with the controller's members set.
type podBody struct {
	APIVersion string                     `json:"apiVersion"`
	Kind       string                     `json:"kind"`
	Metadata   podMeta                    `json:"metadata"`
	Spec       map[string]json.RawMessage `json:"spec"`
}

// maxNameLength is the longest name of an object (a DNS subdomain).
const maxNameLength = 253

// podsPrefix is the generateName Kubernetes' GetPodFromTemplate gives a
// controller's pods: "<set>-", or the bare name when the dash would make
// it too long (getPodsPrefix).
func podsPrefix(set string) string {
	if len(set)+1 > maxNameLength {
		return set
	}
	return set + "-"
}

// newVersionedStatefulSetPod returns the pod of set for ordinal
// (Kubernetes' newVersionedStatefulSetPod): made from currentSet's
// template and labelled currentRevision when the ordinal is below
// currentSet's partition — with the RollingUpdate strategy and no
// rollingUpdate, below start + status.currentReplicas; upstream's
// condition reads the partition whatever the strategy type — else from
// updateSet's, labelled updateRevision. currentSet and updateSet are the
// set at each revision (history.ApplyRevision keeps the JSON). The pod's
// Original() is the JSON to create.
func newVersionedStatefulSetPod(currentSet, updateSet *api.StatefulSet, currentRevision, updateRevision string, ordinal int) (*api.Pod, error) {
	if belowPartition(currentSet, ordinal) {
		return newStatefulSetPod(currentSet, currentRevision, ordinal)
	}
	return newStatefulSetPod(updateSet, updateRevision, ordinal)
}

// belowPartition is upstream's test, operator precedence included:
// (RollingUpdate && rollingUpdate == nil && ordinal < start+currentReplicas)
// || (rollingUpdate != nil && ordinal < start+partition). A nil partition,
// which the apiserver defaults to 0, counts as 0.
func belowPartition(set *api.StatefulSet, ordinal int) bool {
	s := set.Spec.UpdateStrategy
	start := getStartOrdinal(set)
	if s.RollingUpdate == nil {
		return s.Type == api.RollingUpdateStatefulSetStrategyType && ordinal < start+int(set.Status.CurrentReplicas)
	}
	partition := 0
	if s.RollingUpdate.Partition != nil {
		partition = int(*s.RollingUpdate.Partition)
	}
	return ordinal < start+partition
}

// newStatefulSetPod returns set's pod for ordinal labelled with revision
// (Kubernetes' newStatefulSetPod and setPodRevision): the template's
// labels, annotations and finalizers, set as controller, the identity
// (name, namespace, pod-name and pod-index labels, hostname, subdomain =
// serviceName) and the claims' volumes.
func newStatefulSetPod(set *api.StatefulSet, revision string, ordinal int) (*api.Pod, error) {
	body, err := newPodJSON(set, revision, ordinal)
	if err != nil {
		return nil, err
	}
	pod, err := decode.Typed[api.Pod]().Decode(body)
	if err != nil {
		return nil, fmt.Errorf("%w: pod %d of %s: %w", ErrTemplate, ordinal, set.Key(), err)
	}
	return pod, nil
}

// newPodJSON builds the JSON of newStatefulSetPod.
func newPodJSON(set *api.StatefulSet, revision string, ordinal int) ([]byte, error) {
	spec, err := setSpec(set)
	if err != nil {
		return nil, err
	}
	template, err := members(spec["template"])
	if err != nil {
		return nil, fmt.Errorf("%w: %s spec.template: %w", ErrTemplate, set.Key(), err)
	}
	podSpec, err := members(template["spec"])
	if err != nil {
		return nil, fmt.Errorf("%w: %s spec.template.spec: %w", ErrTemplate, set.Key(), err)
	}
	name := getPodName(set, ordinal)
	t := &set.Spec.Template
	labels := make(map[string]string, len(t.Labels)+3)
	for k, v := range t.Labels {
		labels[k] = v
	}
	labels[StatefulSetPodNameLabel] = name
	labels[PodIndexLabel] = strconv.Itoa(ordinal)
	labels[StatefulSetRevisionLabel] = revision

	// Identity: hostname and subdomain, set only on creation.
	podSpec["hostname"] = mustJSON(name)
	if set.Spec.ServiceName != "" {
		podSpec["subdomain"] = mustJSON(set.Spec.ServiceName)
	} else {
		delete(podSpec, "subdomain")
	}
	volumes, err := podVolumes(set, podSpec["volumes"], ordinal)
	if err != nil {
		return nil, err
	}
	if len(volumes) > 0 {
		podSpec["volumes"] = mustJSON(volumes)
	} else {
		delete(podSpec, "volumes")
	}
	return json.Marshal(&podBody{
		APIVersion: "v1", Kind: "Pod",
		Metadata: podMeta{
			Name: name, GenerateName: podsPrefix(set.Name), Namespace: set.Namespace,
			Labels: labels, Annotations: t.Annotations, Finalizers: t.Finalizers,
			OwnerReferences: []api.OwnerReference{controllerref.NewControllerRef(&set.ObjectMeta, setGVK.apiVersion, setGVK.kind)},
		},
		Spec: podSpec,
	})
}

// podVolumes is updateStorage on JSON: a persistentVolumeClaim volume per
// volumeClaimTemplate, in the templates' order, then the template's own
// volumes (as written) except those named as a claim template.
func podVolumes(set *api.StatefulSet, raw json.RawMessage, ordinal int) ([]json.RawMessage, error) {
	var current []json.RawMessage
	if len(bytes.TrimSpace(raw)) > 0 {
		if err := json.Unmarshal(raw, &current); err != nil {
			return nil, fmt.Errorf("%w: %s spec.template.spec.volumes: %w", ErrTemplate, set.Key(), err)
		}
	}
	templates := set.Spec.VolumeClaimTemplates
	out := make([]json.RawMessage, 0, len(templates)+len(current))
	claimed := make(map[string]bool, len(templates))
	for i := range templates {
		claimed[templates[i].Name] = true
		out = append(out, mustJSON(claimVolume(templates[i].Name, getPersistentVolumeClaimName(set, &templates[i], ordinal))))
	}
	for _, v := range current {
		var named struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(v, &named); err != nil {
			return nil, fmt.Errorf("%w: %s spec.template.spec.volumes: %w", ErrTemplate, set.Key(), err)
		}
		if !claimed[named.Name] {
			out = append(out, v)
		}
	}
	return out, nil
}

// mustJSON encodes a value that cannot fail to encode (strings, kcm's
// structs of strings).
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("statefulset: encoding %T: %v", v, err))
	}
	return b
}
