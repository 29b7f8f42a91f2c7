package protocodec

import (
	"reflect"

	"github.com/kcmlab/kcm/kube/api"
)

// HasProtobuf reports whether t, a struct type of package api such as
// api.Pod, has a protobuf form here: its fields compile (see
// ErrNoProtobuf) and its metadata has a field number, as the ObjectMeta
// of every built-in kind's struct does (`pb:"1"`). A struct of a custom
// resource, whose fields carry no pb tags, has none: kube-apiserver
// serves custom resources as JSON only. The answer is computed once per
// type (the compiled message is cached).
func HasProtobuf(t reflect.Type) bool {
	if t == nil || t.Kind() != reflect.Struct {
		return false
	}
	m, err := messageOf(t)
	if err != nil {
		return false
	}
	for _, f := range m.fields {
		if f.idx >= 0 && t.Field(f.idx).Type == typeObjectMeta {
			return true
		}
	}
	return false
}

var typeObjectMeta = reflect.TypeFor[api.ObjectMeta]()
