package store_test

import (
	"fmt"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/store"
)

// pod is a minimal typed object for the example.
type pod struct {
	api.TypeMeta
	api.ObjectMeta
	NodeName string
}

func newPod(ns, name, app, nodeName string) *pod {
	return &pod{
		ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": app}},
		NodeName:   nodeName,
	}
}

func Example() {
	// The built-in namespace and label indexes, plus a field index on
	// spec.nodeName written as an ordinary IndexFunc.
	indexers := store.BuiltinIndexers[*pod](store.IndexNamespace, store.IndexLabel)
	indexers["node"] = func(p *pod) []string { return []string{p.NodeName} }
	s := store.New(store.Options[*pod]{Indexers: indexers})

	s.Replace([]*pod{
		newPod("shop", "web-b", "web", "n1"),
		newPod("shop", "web-a", "web", "n2"),
		newPod("shop", "db-0", "db", "n1"),
		newPod("kube-system", "dns", "dns", "n2"),
	})
	s.Set(newPod("shop", "web-c", "web", "n2"))
	s.Delete("shop/web-b")

	p, ok := s.Get("shop/db-0")
	fmt.Println("get:", p.Name, ok)

	web, _ := s.ByIndex(store.IndexLabel, "app=web")
	for _, p := range web {
		fmt.Println("app=web:", p.Key())
	}
	onN2, _ := s.IndexKeys("node", "n2")
	fmt.Println("on n2:", onN2)

	page, next, _ := s.ByIndexPage(store.IndexNamespace, "shop", "", 2)
	fmt.Println("page 1:", page[0].Name, page[1].Name, "next:", next)
	page, next, _ = s.ByIndexPage(store.IndexNamespace, "shop", next, 2)
	fmt.Println("page 2:", page[0].Name, "next:", next == "")

	fmt.Println("namespaces:", s.ListIndexValues(store.IndexNamespace))
	_, err := s.ByIndex("zone", "a")
	fmt.Println(err)
	// Output:
	// get: db-0 true
	// app=web: shop/web-a
	// app=web: shop/web-c
	// on n2: [kube-system/dns shop/web-a shop/web-c]
	// page 1: db-0 web-a next: shop/web-a
	// page 2: web-c next: true
	// namespaces: [kube-system shop]
	// store: no such index: "zone"
}

// The owner of a store keeps the *Store, the writer, and hands out its
// View: the same reads, no way to write.
func ExampleView() {
	s := store.New(store.Options[*pod]{Indexers: store.BuiltinIndexers[*pod](store.IndexNamespace)})
	s.Set(newPod("shop", "web-a", "web", "n1"))
	s.Set(&pod{ObjectMeta: api.ObjectMeta{Name: "n1"}}) // cluster-scoped
	v := s.View()

	p, ok := v.Get(store.MetaNamespaceKey("shop", "web-a"))
	fmt.Println(p.Name, ok)
	n, ok := v.Get(store.MetaNamespaceKey("", "n1"))
	fmt.Println(n.Name, ok, v.KeyOf(n))
	inShop, _ := v.ByIndex(store.IndexNamespace, "shop")
	fmt.Println(len(inShop), v.Len())

	s.Delete("shop/web-a") // the owner writes; every View sees it
	_, ok = v.Get("shop/web-a")
	fmt.Println(ok)
	// Output:
	// web-a true
	// n1 true n1
	// 1 2
	// false
}
