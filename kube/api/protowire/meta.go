package protowire

import (
	"fmt"
	"maps"
	"time"
	"unsafe"

	"github.com/kcmlab/kcm/kube/api"
)

// The metadata scanner. Every Kubernetes object message has its
// ObjectMeta as field 1 (core/v1 Pod: metadata = 1, spec = 2, status = 3;
// the same for every kind), and ObjectMeta's field numbers are stable API
// (k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto):
//
//	name 1, generateName 2, namespace 3, selfLink 4, uid 5,
//	resourceVersion 6, generation 7 (int64),
//	creationTimestamp 8, deletionTimestamp 9 (Time {seconds 1, nanos 2}),
//	deletionGracePeriodSeconds 10 (int64),
//	labels 11, annotations 12 (map<string,string>: entries {key 1, value 2}),
//	ownerReferences 13 (OwnerReference: kind 1, name 3, uid 4,
//	    apiVersion 5, controller 6, blockOwnerDeletion 7),
//	finalizers 14, managedFields 17
//
// The scanner reads these into kcm's api.ObjectMeta — what kcm's
// RawObject exposes — and steps over everything else by length.

// Metadata field numbers (meta/v1 ObjectMeta).
const (
	metaName                       = 1
	metaGenerateName               = 2
	metaNamespace                  = 3
	metaUID                        = 5
	metaResourceVersion            = 6
	metaGeneration                 = 7
	metaCreationTimestamp          = 8
	metaDeletionTimestamp          = 9
	metaDeletionGracePeriodSeconds = 10
	metaLabels                     = 11
	metaAnnotations                = 12
	metaOwnerReferences            = 13
	metaFinalizers                 = 14
	metaManagedFields              = 17
)

// objectMetadata is the field number of every object's ObjectMeta.
const objectMetadata = 1

// str returns b as a string. With alias set the string shares b's memory,
// which is only correct when b is never written again (an Object's kept
// message); otherwise it is a copy.
func str(b []byte, alias bool) string {
	if !alias || len(b) == 0 {
		return string(b)
	}
	return unsafe.String(&b[0], len(b))
}

// ScanMeta reads the ObjectMeta of an object's message msg (every field-1
// occurrence, merged as protobuf merges a message seen twice) into m.
// Strings are copies, so msg may be reused afterwards.
func ScanMeta(msg []byte, m *api.ObjectMeta) error { return scanObjectMeta(msg, m, false) }

func scanObjectMeta(msg []byte, m *api.ObjectMeta, alias bool) error {
	_, err := scanObjectMetaPrivate(msg, m, alias)
	return err
}

// scanObjectMetaPrivate is scanObjectMeta, and reports whether a map or
// the owner references were read field by field (not shared, share.go):
// with alias, their strings then point into msg.
func scanObjectMetaPrivate(msg []byte, m *api.ObjectMeta, alias bool) (private bool, err error) {
	r := NewReader(msg)
	for !r.Done() {
		f, err := r.Next()
		if err != nil {
			return private, fmt.Errorf("object: %w", err)
		}
		if f.Num != objectMetadata {
			continue
		}
		b, err := f.Message()
		if err != nil {
			return private, fmt.Errorf("object: metadata: %w", err)
		}
		p, err := readObjectMeta(b, m, alias)
		if err != nil {
			return private, fmt.Errorf("object: metadata: %w", err)
		}
		private = private || p
	}
	return private, nil
}

// counts is where the map entries, owner references and finalizers of a
// metadata message sit and how many there are, so that each is allocated
// once, at size, or shared (see share.go).
type counts struct {
	labels, annotations, owners run
	finalizers                  int
}

func countMeta(b []byte) (counts, error) {
	var c counts
	r := NewReader(b)
	last := 0
	for !r.Done() {
		f, err := r.Next()
		if err != nil {
			return c, err
		}
		switch f.Num {
		case metaLabels:
			c.labels.add(f.Start, f.End, last)
		case metaAnnotations:
			c.annotations.add(f.Start, f.End, last)
		case metaOwnerReferences:
			c.owners.add(f.Start, f.End, last)
		case metaFinalizers:
			c.finalizers++
		}
		last = f.End
	}
	return c, nil
}

// readObjectMeta reads one metadata message into m. With alias (an
// Object's kept message) strings point into b, and labels, annotations
// and owner references that arrive as one run of fields are shared with
// other Objects holding the same run (share.go).
func readObjectMeta(b []byte, m *api.ObjectMeta, alias bool) (private bool, err error) {
	c, err := countMeta(b)
	if err != nil {
		return false, err
	}
	// skip[num]: the run of field num was shared, not read field by field.
	var skip [metaOwnerReferences + 1]bool
	if alias && c.labels.shareable() && m.Labels == nil {
		if m.Labels, err = sharedMap(metaLabels, b[c.labels.start:c.labels.end], c.labels.n); err != nil {
			return false, err
		}
		skip[metaLabels] = true
	}
	if alias && c.annotations.shareable() && m.Annotations == nil {
		if m.Annotations, err = sharedMap(metaAnnotations, b[c.annotations.start:c.annotations.end], c.annotations.n); err != nil {
			return false, err
		}
		skip[metaAnnotations] = true
	}
	if alias && c.owners.shareable() && m.OwnerReferences == nil {
		if m.OwnerReferences, err = sharedOwners(b[c.owners.start:c.owners.end], c.owners.n); err != nil {
			return false, err
		}
		skip[metaOwnerReferences] = true
	}
	// Maps read field by field get a private map: a new one, or — when
	// metadata came twice and the first brought a map, maybe a shared
	// one — a copy, never written in place.
	if c.labels.n > 0 && !skip[metaLabels] {
		m.Labels = privateMap(m.Labels, c.labels.n)
	}
	if c.annotations.n > 0 && !skip[metaAnnotations] {
		m.Annotations = privateMap(m.Annotations, c.annotations.n)
	}
	if c.owners.n > 0 && !skip[metaOwnerReferences] {
		m.OwnerReferences = growTo(m.OwnerReferences, c.owners.n)
	}
	if c.finalizers > 0 {
		m.Finalizers = growTo(m.Finalizers, c.finalizers)
	}
	private = (c.labels.n > 0 && !skip[metaLabels]) || (c.annotations.n > 0 && !skip[metaAnnotations]) ||
		(c.owners.n > 0 && !skip[metaOwnerReferences])
	r := NewReader(b)
	for !r.Done() {
		f, err := r.Next()
		if err != nil {
			return private, err
		}
		if int(f.Num) < len(skip) && skip[f.Num] {
			continue
		}
		if err := readMetaField(f, m, alias); err != nil {
			return private, fmt.Errorf("field %d: %w", f.Num, err)
		}
	}
	return private, nil
}

func readMetaField(f Field, m *api.ObjectMeta, alias bool) error {
	switch f.Num {
	case metaName, metaGenerateName, metaNamespace, metaUID, metaResourceVersion, metaFinalizers:
		b, err := f.Message()
		if err != nil {
			return err
		}
		s := str(b, alias)
		switch f.Num {
		case metaName:
			m.Name = s
		case metaGenerateName:
			m.GenerateName = s
		case metaNamespace:
			m.Namespace = s
		case metaUID:
			m.UID = s
		case metaResourceVersion:
			m.ResourceVersion = s
		default:
			m.Finalizers = append(m.Finalizers, s)
		}
	case metaGeneration:
		v, err := f.Int64()
		if err != nil {
			return err
		}
		m.Generation = v
	case metaDeletionGracePeriodSeconds:
		v, err := f.Int64()
		if err != nil {
			return err
		}
		m.DeletionGracePeriodSeconds = &v
	case metaCreationTimestamp, metaDeletionTimestamp:
		b, err := f.Message()
		if err != nil {
			return err
		}
		t, err := readTime(b)
		if err != nil {
			return err
		}
		if f.Num == metaCreationTimestamp {
			m.CreationTimestamp = t
		} else {
			m.DeletionTimestamp = &t
		}
	case metaLabels, metaAnnotations:
		b, err := f.Message()
		if err != nil {
			return err
		}
		k, v, err := readMapEntry(b, alias)
		if err != nil {
			return err
		}
		if f.Num == metaLabels {
			m.Labels[k] = v
		} else {
			m.Annotations[k] = v
		}
	case metaOwnerReferences:
		b, err := f.Message()
		if err != nil {
			return err
		}
		ref, err := readOwnerReference(b, alias)
		if err != nil {
			return err
		}
		m.OwnerReferences = append(m.OwnerReferences, ref)
	}
	return nil
}

// readTime reads meta/v1 Time, which is written as Timestamp {seconds 1,
// nanos 2}, and as an empty message for the zero time. Like
// apimachinery's Time.Unmarshal it keeps seconds only: the JSON form has
// no fractions, and the two encodings must read the same.
func readTime(b []byte) (api.Time, error) {
	if len(b) == 0 {
		return api.Time{}, nil
	}
	var secs int64
	r := NewReader(b)
	for !r.Done() {
		f, err := r.Next()
		if err != nil {
			return api.Time{}, err
		}
		switch f.Num {
		case 1:
			if secs, err = f.Int64(); err != nil {
				return api.Time{}, err
			}
		case 2:
			if _, err := f.Int32(); err != nil {
				return api.Time{}, err
			}
		}
	}
	return api.Time{Time: time.Unix(secs, 0).Local()}, nil
}

// readMapEntry reads a map<string,string> entry {key 1, value 2}; a
// missing key or value is the empty string, as protobuf's map rules say.
func readMapEntry(b []byte, alias bool) (k, v string, err error) {
	r := NewReader(b)
	for !r.Done() {
		f, err := r.Next()
		if err != nil {
			return "", "", err
		}
		if f.Num != 1 && f.Num != 2 {
			continue
		}
		s, err := f.Message()
		if err != nil {
			return "", "", err
		}
		if f.Num == 1 {
			k = str(s, alias)
		} else {
			v = str(s, alias)
		}
	}
	return k, v, nil
}

// Owner reference field numbers (meta/v1 OwnerReference).
const (
	ownerKind               = 1
	ownerName               = 3
	ownerUID                = 4
	ownerAPIVersion         = 5
	ownerController         = 6
	ownerBlockOwnerDeletion = 7
)

// The bools owner references point to. Decoded objects are immutable
// (as kcm's RawObject), so every reference shares these two.
var (
	boolTrue  = true
	boolFalse = false
)

func boolPtr(v bool) *bool {
	if v {
		return &boolTrue
	}
	return &boolFalse
}

func readOwnerReference(b []byte, alias bool) (api.OwnerReference, error) {
	var ref api.OwnerReference
	r := NewReader(b)
	for !r.Done() {
		f, err := r.Next()
		if err != nil {
			return ref, err
		}
		switch f.Num {
		case ownerKind, ownerName, ownerUID, ownerAPIVersion:
			s, err := f.Message()
			if err != nil {
				return ref, err
			}
			switch f.Num {
			case ownerKind:
				ref.Kind = str(s, alias)
			case ownerName:
				ref.Name = str(s, alias)
			case ownerUID:
				ref.UID = str(s, alias)
			default:
				ref.APIVersion = str(s, alias)
			}
		case ownerController, ownerBlockOwnerDeletion:
			v, err := f.Bool()
			if err != nil {
				return ref, err
			}
			if f.Num == ownerController {
				ref.Controller = boolPtr(v)
			} else {
				ref.BlockOwnerDeletion = boolPtr(v)
			}
		}
	}
	return ref, nil
}

// privateMap returns a new map holding m's entries, with room for n more.
func privateMap(m map[string]string, n int) map[string]string {
	out := make(map[string]string, len(m)+n)
	maps.Copy(out, m)
	return out
}

// growTo returns s with room for n more elements: a new array when s has
// no room (so a shared array is never appended to in place).
func growTo[E any](s []E, n int) []E {
	if cap(s)-len(s) >= n {
		return s
	}
	out := make([]E, len(s), len(s)+n)
	copy(out, s)
	return out
}

// stringBytes is s's bytes, shared; they must not be written.
func stringBytes(s string) []byte {
	if s == "" {
		return nil
	}
	return unsafe.Slice(unsafe.StringData(s), len(s))
}
