package deployment

import (
	"errors"
	"fmt"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/protocodec"
)

// ErrMixedEncodings: two templates to compare were read in different
// encodings, one as JSON and one as protobuf. Neither can be turned into
// the other without losing what kcm does not model, so they are not
// compared: a controller reads Deployments and ReplicaSets through one
// client, so this never happens in a running controller.
var ErrMixedEncodings = errors.New("deployment: templates read as JSON and as protobuf cannot be compared")

// templateForm is how a template was read.
type templateForm uint8

const (
	formCode  templateForm = iota // built in code: only kcm's struct
	formJSON                      // read as JSON: the object's raw JSON
	formProto                     // read as protobuf: the object's message
)

// podTemplate is spec.template of a Deployment or ReplicaSet as read,
// in the form it was read in: the decoded JSON (hash.go) or the
// PodTemplateSpec message (hashproto.go). A template built in code has
// both, from kcm's struct (json.Marshal, protocodec.Marshal), and
// compares with either.
type podTemplate struct {
	form templateForm
	json map[string]any // formJSON, formCode
	msg  []byte         // formProto, formCode
}

// templateOf returns obj's template; typed is obj's spec.template, which
// an object built in code is read from.
func templateOf(obj api.Object, typed *api.PodTemplateSpec) (podTemplate, error) {
	m := obj.GetObjectMeta()
	if m.IsProto() {
		whole, err := m.OriginalProto()
		if err != nil {
			return podTemplate{}, fmt.Errorf("%w: %w", ErrTemplate, err)
		}
		t, err := templateProto(whole)
		if err != nil {
			return podTemplate{}, err
		}
		return podTemplate{form: formProto, msg: t}, nil
	}
	j, err := templateJSON(obj, typed)
	if err != nil {
		return podTemplate{}, err
	}
	if m.Raw() != nil {
		return podTemplate{form: formJSON, json: j}, nil
	}
	msg, err := protocodec.Marshal(typed)
	if err != nil {
		return podTemplate{}, fmt.Errorf("%w: %w", ErrTemplate, err)
	}
	return podTemplate{form: formCode, json: j, msg: msg}, nil
}

// isProto reports whether t compares as protobuf against o: either was
// read as protobuf. Read as JSON and as protobuf is ErrMixedEncodings.
func (t podTemplate) isProto(o podTemplate) (bool, error) {
	switch {
	case t.form == formProto && o.form == formJSON, t.form == formJSON && o.form == formProto:
		return false, ErrMixedEncodings
	}
	return t.form == formProto || o.form == formProto, nil
}

// equalIgnoreHash is EqualIgnoreHash or EqualIgnoreHashProto, by the
// forms of t and o.
func (t podTemplate) equalIgnoreHash(o podTemplate) (bool, error) {
	proto, err := t.isProto(o)
	switch {
	case err != nil:
		return false, err
	case proto:
		return EqualIgnoreHashProto(t.msg, o.msg)
	}
	return EqualIgnoreHash(t.json, o.json), nil
}

// hash is the template's pod-template-hash: ComputeHashProto for one
// read as protobuf, ComputeHash otherwise.
func (t podTemplate) hash(collisionCount *int32) (string, error) {
	if t.form == formProto {
		return ComputeHashProto(t.msg, collisionCount)
	}
	return ComputeHash(t.json, collisionCount), nil
}
