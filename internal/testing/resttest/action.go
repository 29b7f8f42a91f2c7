package resttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// Action is one request the server received, in Kubernetes' vocabulary:
// the verb an RBAC rule would name, the resource and subresource, the
// namespace and name, and the body as sent. Every request is recorded,
// the ones a fault answered and the ones the tracker refused included.
type Action struct {
	// Verb is get, list, watch, create, update, patch, delete or
	// deletecollection.
	Verb string
	// Group is the API group ("" for the core group, "apps", ...).
	Group string
	// Resource is the plural resource name: "pods", "replicasets".
	Resource string
	// Subresource is "status", "finalize", ... or "".
	Subresource string
	// Namespace is the request's namespace; "" for a cluster-scoped
	// resource or a request across all namespaces.
	Namespace string
	// Name is the object's name; for a create, the name the body asks for
	// ("" when it asks the server to generate one); "" for list and
	// deletecollection.
	Name string
	// Body is the request body as sent: the object of a create or update,
	// the patch, the DeleteOptions of a delete.
	Body []byte
	// PatchType is the Content-Type of a patch.
	PatchType rest.PatchType
	// Query is the request's query (labelSelector, fieldSelector, ...).
	Query url.Values
}

// String renders the action on one line:
//
//	get replicasets ns/web
//	list pods ns/                       (a collection: the namespace and a slash)
//	create pods ns/web-*                (generateName web-)
//	update replicasets/status ns/web
//	update namespaces/finalize team-a   (cluster-scoped: the name alone)
//	patch pods ns/p1 strategic {"metadata":{...}}
//	delete replicasets ns/web-1 uid=rs1 rv=20 policy=Background
//	deletecollection configmaps ns/ policy=Background
//
// Delete options appear only when set (uid=, rv=, policy=, grace=), the
// selectors of a list or deletecollection as labelSelector= and
// fieldSelector=, a patch's type (strategic, merge, json, apply) and body
// always. Expect and Select match these lines by their first words.
func (a Action) String() string {
	var b strings.Builder
	b.WriteString(a.Verb)
	b.WriteByte(' ')
	b.WriteString(a.Resource)
	if a.Subresource != "" {
		b.WriteByte('/')
		b.WriteString(a.Subresource)
	}
	if t := a.target(); t != "" {
		b.WriteByte(' ')
		b.WriteString(t)
	}
	for _, k := range []string{"labelSelector", "fieldSelector"} {
		if v := a.Query.Get(k); v != "" {
			fmt.Fprintf(&b, " %s=%s", k, v)
		}
	}
	switch a.Verb {
	case "delete", "deletecollection":
		b.WriteString(deleteDetails(a.DeleteOptions()))
	case "patch":
		b.WriteByte(' ')
		b.WriteString(patchName(a.PatchType))
		b.WriteByte(' ')
		b.Write(compactJSON(a.Body))
	}
	return b.String()
}

// target is "ns/name", "name" (cluster-scoped), "ns/" (a collection in a
// namespace) or "" (a cluster-wide collection); a create without a name
// shows its generateName followed by "*".
func (a Action) target() string {
	name := a.Name
	if name == "" && a.Verb == "create" {
		if g := a.generateName(); g != "" {
			name = g + "*"
		}
	}
	if a.Namespace == "" {
		return name
	}
	return a.Namespace + "/" + name
}

func (a Action) generateName() string {
	var body struct {
		Metadata struct {
			GenerateName string `json:"generateName"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(a.Body, &body)
	return body.Metadata.GenerateName
}

func deleteDetails(o rest.DeleteOptions) string {
	var b strings.Builder
	if p := o.Preconditions; p != nil {
		if p.UID != nil {
			b.WriteString(" uid=" + *p.UID)
		}
		if p.ResourceVersion != nil {
			b.WriteString(" rv=" + *p.ResourceVersion)
		}
	}
	if o.PropagationPolicy != "" {
		b.WriteString(" policy=" + o.PropagationPolicy)
	}
	if o.GracePeriodSeconds != nil {
		fmt.Fprintf(&b, " grace=%d", *o.GracePeriodSeconds)
	}
	return b.String()
}

// patchName is the short name of a patch type in an action's line.
func patchName(pt rest.PatchType) string {
	switch pt {
	case rest.StrategicMergePatch:
		return "strategic"
	case rest.MergePatch:
		return "merge"
	case rest.JSONPatch:
		return "json"
	case rest.ApplyPatch:
		return "apply"
	}
	return string(pt)
}

func compactJSON(b []byte) []byte {
	var out bytes.Buffer
	if json.Compact(&out, b) != nil {
		return b
	}
	return out.Bytes()
}

// DeleteOptions decodes the body of a delete or deletecollection; the
// zero value when there is none.
func (a Action) DeleteOptions() rest.DeleteOptions {
	var o rest.DeleteOptions
	_ = json.Unmarshal(a.Body, &o)
	return o
}

// Object decodes the body as a JSON object, numbers as float64 (nil when
// it is not an object).
func (a Action) Object() map[string]any {
	var m map[string]any
	_ = json.Unmarshal(a.Body, &m)
	return m
}

// Decode decodes the body of a create or update as T.
func Decode[T api.Object](a Action) (T, error) {
	return codecFor[T]().Decode(append([]byte(nil), a.Body...))
}

// matches reports whether pattern's words are the first words of line.
func matches(line, pattern string) bool {
	return line == pattern || strings.HasPrefix(line, pattern+" ")
}

// Select returns the actions whose line (String) starts with pattern's
// words, in order: Select(actions, "create pods") is every pod create,
// Select(actions, "delete pods ns/web-1") the deletes of that pod.
func Select(actions []Action, pattern string) []Action {
	var out []Action
	for _, a := range actions {
		if matches(a.String(), pattern) {
			out = append(out, a)
		}
	}
	return out
}

// Last returns the last action that Select would return.
func Last(actions []Action, pattern string) (Action, bool) {
	sel := Select(actions, pattern)
	if len(sel) == 0 {
		return Action{}, false
	}
	return sel[len(sel)-1], true
}

// Lines renders actions with String.
func Lines(actions []Action) []string {
	out := make([]string, len(actions))
	for i, a := range actions {
		out[i] = a.String()
	}
	return out
}
