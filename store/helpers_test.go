package store

import (
	"slices"

	"github.com/kcmlab/kcm/kube/api"
)

// tobj is the test object: metadata plus a field a user index reads.
type tobj struct {
	api.TypeMeta
	api.ObjectMeta
	Node string
	Rev  int
}

type opt func(*tobj)

func mk(ns, name string, opts ...opt) *tobj {
	o := &tobj{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name}}
	for _, f := range opts {
		f(o)
	}
	return o
}

// labels sets labels from "k", "v" pairs.
func labels(kv ...string) opt {
	return func(o *tobj) {
		o.Labels = map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			o.Labels[kv[i]] = kv[i+1]
		}
	}
}

func owners(uids ...string) opt {
	return func(o *tobj) {
		for _, u := range uids {
			o.OwnerReferences = append(o.OwnerReferences, api.OwnerReference{Kind: "ReplicaSet", Name: "rs-" + u, UID: u})
		}
	}
}

func node(n string) opt { return func(o *tobj) { o.Node = n } }
func rev(r int) opt     { return func(o *tobj) { o.Rev = r } }

// byNode is a user index func, as a typed user would write for
// spec.nodeName.
func byNode(o *tobj) []string {
	if o.Node == "" {
		return nil
	}
	return []string{o.Node}
}

// allIndexers is the three built-ins plus the node index.
func allIndexers() Indexers[*tobj] {
	ix := BuiltinIndexers[*tobj]()
	ix["node"] = byNode
	return ix
}

func newTestStore(items ...*tobj) *Store[*tobj] {
	s := New(Options[*tobj]{Indexers: allIndexers()})
	for _, o := range items {
		s.Set(o)
	}
	return s
}

func keysOf(objs []*tobj) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = o.Key()
	}
	return out
}

func sortedKeys(objs []*tobj) []string {
	k := keysOf(objs)
	slices.Sort(k)
	return k
}
