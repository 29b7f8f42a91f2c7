package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"

	"github.com/kcmlab/kcm/kube/api"
)

// The encodings a sync can read (SyncSample.Wire).
const (
	WireJSON     = "json"
	WireProtobuf = "protobuf"
)

// ErrVariantMismatch is wrapped by SyncOnce's error when the cache a
// variant filled is not what the variant says it measures: read in
// another encoding, or holding managedFields it should have dropped (or
// the reverse). A benchmark row is only worth its name if this holds.
var ErrVariantMismatch = errors.New("bench: the cache does not hold what the variant says")

// probeObjects is how many cached objects checkCache inspects.
const probeObjects = 16

// cacheProber is a Running that can show what its cache holds.
type cacheProber interface {
	// probe inspects up to n cached objects: whether any still carries
	// managedFields, and the encoding they were read in where the cache
	// can tell (kcm's RawObjects keep the message they were read from),
	// "" where it cannot (client-go's decoded structs).
	probe(n int) (managedFields bool, wire string, err error)
}

// checkCache fills s.Wire and s.ManagedFields from r's cache (and, for
// client-go, from the Content-Type of its first response, the LIST's) and
// fails with ErrVariantMismatch when they are not v's.
func checkCache(v APIVariant, r Running, respType *atomic.Pointer[string], s *SyncSample) error {
	p, ok := r.(cacheProber)
	if !ok {
		return fmt.Errorf("bench: %s: the engine cannot show its cache", v.Name)
	}
	mf, wire, err := p.probe(probeObjects)
	if err != nil {
		return fmt.Errorf("bench: %s: %w", v.Name, err)
	}
	if wire == "" {
		wire = wireOf(respType.Load())
	}
	s.Wire, s.ManagedFields = wire, mf
	if wire != v.Wire() {
		return fmt.Errorf("%w: %s read %q, want %q", ErrVariantMismatch, v.Name, wire, v.Wire())
	}
	if mf == v.StripsManagedFields() {
		return fmt.Errorf("%w: %s cached pods with managedFields %v, want %v", ErrVariantMismatch, v.Name, mf, !mf)
	}
	return nil
}

// wireOf names the encoding of a response's Content-Type ("" for none).
func wireOf(ct *string) string {
	if ct == nil {
		return ""
	}
	mt, _, err := mime.ParseMediaType(*ct)
	switch {
	case err != nil:
		return *ct
	case mt == "application/vnd.kubernetes.protobuf":
		return WireProtobuf
	case mt == "application/json":
		return WireJSON
	}
	return mt
}

// inspectKCM reports the encoding a kcm object was read in and whether
// it still carries managedFields. A protobuf message is decoded by
// k8s.io/api's generated code, not kcm's, so that the check does not
// trust what it checks.
func inspectKCM(obj api.Object) (wire string, managedFields bool, err error) {
	if o, ok := obj.(*api.RawObject); ok && o.IsProto() {
		msg, err := o.ProtoErr()
		if err != nil {
			return "", false, fmt.Errorf("cached %s/%s: %w", o.Namespace, o.Name, err)
		}
		var p corev1.Pod
		if err := p.Unmarshal(msg); err != nil {
			return "", false, fmt.Errorf("cached %s/%s: protobuf: %w", o.Namespace, o.Name, err)
		}
		return WireProtobuf, len(p.ManagedFields) > 0, nil
	}
	m := obj.GetObjectMeta()
	raw, err := m.Original()
	if err != nil || raw == nil {
		return "", false, fmt.Errorf("cached %s/%s has neither JSON nor protobuf bytes (%v)", m.Namespace, m.Name, err)
	}
	var p struct {
		Metadata struct {
			ManagedFields []json.RawMessage `json:"managedFields"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return "", false, fmt.Errorf("cached %s/%s: JSON: %w", m.Namespace, m.Name, err)
	}
	return WireJSON, len(p.Metadata.ManagedFields) > 0, nil
}

func (r *kcmRunning[T]) probe(n int) (managedFields bool, wire string, err error) {
	objs := r.inf.Store().List()
	for _, obj := range objs[:min(n, len(objs))] {
		w, mf, err := inspectKCM(obj)
		if err != nil {
			return false, "", err
		}
		if wire != "" && w != wire {
			return false, "", fmt.Errorf("%w: the cache holds both %s and %s", ErrVariantMismatch, wire, w)
		}
		wire, managedFields = w, managedFields || mf
	}
	return managedFields, wire, nil
}

func (r *clientGoRunning) probe(n int) (managedFields bool, wire string, err error) {
	objs := r.inf.GetStore().List()
	for _, obj := range objs[:min(n, len(objs))] {
		p, ok := obj.(*corev1.Pod)
		if !ok {
			return false, "", fmt.Errorf("client-go cached a %T", obj)
		}
		managedFields = managedFields || len(p.ManagedFields) > 0
	}
	return managedFields, "", nil
}
