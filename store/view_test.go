package store

import (
	"reflect"
	"slices"
	"testing"
)

// readMethods is View's whole method set. A method added to View must be
// added here, after checking it cannot write.
var readMethods = []string{
	"AppendByIndex", "ByIndex", "ByIndexPage", "ByIndexRange", "Get", "IndexKeys", "IndexLen",
	"KeyOf", "LastStoreSyncResourceVersion", "Len", "List", "ListIndexValues", "ListKeys",
}

// TestViewCannotWrite: a View offers the reading half of client-go's
// Indexer and nothing else, and gives no way back to the writer: no write
// method, no exported field, and (being a struct, not an interface holding
// the *Store) no type assertion to *Store.
func TestViewCannotWrite(t *testing.T) {
	s := fixture()
	v := s.View()
	vt := reflect.TypeOf(v)
	var got []string
	for m := range vt.Methods() {
		got = append(got, m.Name)
	}
	if !slices.Equal(got, readMethods) {
		t.Errorf("View's methods = %v, want exactly %v", got, readMethods)
	}
	st := reflect.TypeOf(s)
	for _, w := range []string{"Set", "Delete", "DeleteObject", "Apply", "Replace", "ReplaceOps", "Bookmark", "AddIndexers"} {
		if _, ok := st.MethodByName(w); !ok {
			t.Fatalf("*Store has no %s: the list of writes is stale", w)
		}
		if _, ok := vt.MethodByName(w); ok {
			t.Errorf("View has the write method %s", w)
		}
	}
	for f := range vt.Fields() {
		if f.IsExported() {
			t.Errorf("View exports field %s", f.Name)
		}
	}
	if _, ok := any(v).(*Store[*tobj]); ok {
		t.Error("a View type-asserts to *Store")
	}
	if _, ok := any(v).(interface{ Set(*tobj) (*tobj, bool) }); ok {
		t.Error("a View has Set")
	}
}

// TestViewReadsTheStore: every View method answers what the Store method of
// the same name answers, arguments passed through in order, also after
// writes (a View is not a copy).
func TestViewReadsTheStore(t *testing.T) {
	s := fixture()
	v := s.View()
	s.Set(mk("default", "web-3", labels("app", "web"), node("n1")))
	s.Delete("default/db-0")
	same := func(what string, a, b any) {
		t.Helper()
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: View %v, Store %v", what, a, b)
		}
	}
	web3 := mk("default", "web-3")
	same("KeyOf", v.KeyOf(web3), s.KeyOf(web3))
	for _, key := range []string{"default/web-3", "default/db-0", "node-a"} {
		vo, vok := v.Get(key)
		so, sok := s.Get(key)
		same("Get "+key, []any{vo, vok}, []any{so, sok})
	}
	same("Len", v.Len(), s.Len())
	same("List", sortedKeys(v.List()), sortedKeys(s.List()))
	vk, sk := v.ListKeys(), s.ListKeys()
	slices.Sort(vk)
	slices.Sort(sk)
	same("ListKeys", vk, sk)
	for _, q := range [][2]string{{IndexLabel, "app=web"}, {"node", "n1"}, {"nope", "x"}} {
		vo, verr := v.ByIndex(q[0], q[1])
		so, serr := s.ByIndex(q[0], q[1])
		same("ByIndex "+q[1], []any{keysOf(vo), verr}, []any{keysOf(so), serr})
		va, verr := v.AppendByIndex([]*tobj{nil}, q[0], q[1])
		sa, serr := s.AppendByIndex([]*tobj{nil}, q[0], q[1])
		same("AppendByIndex "+q[1], []any{va, verr}, []any{sa, serr})
		vk, verr := v.IndexKeys(q[0], q[1])
		sk, serr := s.IndexKeys(q[0], q[1])
		same("IndexKeys "+q[1], []any{vk, verr}, []any{sk, serr})
		same("ListIndexValues "+q[0], v.ListIndexValues(q[0]), s.ListIndexValues(q[0]))
	}
	vp, vn, verr := v.ByIndexPage(IndexNamespace, "default", "default/web-1", 1)
	sp, sn, serr := s.ByIndexPage(IndexNamespace, "default", "default/web-1", 1)
	same("ByIndexPage", []any{keysOf(vp), vn, verr}, []any{keysOf(sp), sn, serr})
	if len(vp) != 1 || vn == "" {
		t.Errorf("ByIndexPage after web-1, limit 1 = %v next %q: want one item and more", keysOf(vp), vn)
	}
	after := Cursor{Value: "app=dns", Key: "kube-system/dns"}
	vr, vc, verr := v.ByIndexRange(IndexLabel, "app=", "app>", after, 1)
	sr, sc, serr := s.ByIndexRange(IndexLabel, "app=", "app>", after, 1)
	same("ByIndexRange", []any{keysOf(vr), vc, verr}, []any{keysOf(sr), sc, serr})
	if len(vr) != 1 || vc == (Cursor{}) {
		t.Errorf("ByIndexRange after dns, limit 1 = %v next %+v: want one item and more", keysOf(vr), vc)
	}
}

// TestMetaNamespaceKey: the key a lister builds from a namespace and a name
// is the key the default KeyFunc gives the object (client-go's
// MetaNamespaceKeyFunc: "namespace/name", just "name" when cluster-scoped).
func TestMetaNamespaceKey(t *testing.T) {
	s := New(Options[*tobj]{})
	for _, tc := range []struct{ ns, name, want string }{
		{"default", "web-1", "default/web-1"},
		{"", "node-a", "node-a"},
		{"kube-system", "", "kube-system/"},
	} {
		got := MetaNamespaceKey(tc.ns, tc.name)
		if got != tc.want {
			t.Errorf("MetaNamespaceKey(%q, %q) = %q, want %q", tc.ns, tc.name, got, tc.want)
		}
		if k := s.KeyOf(mk(tc.ns, tc.name)); k != got {
			t.Errorf("default KeyFunc gives %q, MetaNamespaceKey %q", k, got)
		}
	}
}
