package podgen_test

import (
	"bytes"
	"context"
	"fmt"

	"github.com/kcmlab/kcm/internal/testing/podgen"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/rest"
)

// A generated pod decodes like one read from a cluster.
func ExamplePod() {
	p, err := decode.Typed[api.Pod]().Decode(podgen.Pod(0))
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Namespace, p.Name, p.ResourceVersion)
	fmt.Println("owner:", p.ControllerRef().Kind, p.ControllerRef().Name)
	fmt.Println("labels:", p.Labels)
	fmt.Println("ready:", api.IsPodReady(p), "on", p.Spec.NodeName)
	fmt.Println("has managedFields:", bytes.Contains(podgen.Pod(0), []byte(`"managedFields"`)))
	// Output:
	// payments-prod api-w2rp5j8bch-kpb4g 100000
	// owner: ReplicaSet api-w2rp5j8bch
	// labels: map[app:api pod-template-hash:w2rp5j8bch]
	// ready: true on worker-076
	// has managedFields: true
}

// Server answers a rest client's LIST exactly like an apiserver would,
// from bytes encoded once.
func ExampleServer() {
	s := podgen.NewServer(podgen.ServerOptions{Pods: 120})
	defer s.Close()
	c, err := rest.NewClient(&rest.Config{Host: s.URL, QPS: -1})
	if err != nil {
		panic(err)
	}
	pods := rest.NewResources(c, rest.Pods, decode.Raw())
	all, err := pods.ListAll(context.Background(), rest.ListOptions{Limit: 50})
	if err != nil {
		panic(err)
	}
	fmt.Println(len(all.Items), "pods at resourceVersion", all.ResourceVersion, "in", s.Stats().Lists, "pages")
	// Output:
	// 120 pods at resourceVersion 100120 in 3 pages
}
