package statefulset

import (
	"fmt"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
)

// The pods and claims of a StatefulSet: ordinals from spec.ordinals.start,
// names <set>-<ordinal> and <claim>-<set>-<ordinal>, hostname and
// subdomain from the headless service, and the revision each pod is made
// from: below the partition (counted from the start ordinal) the current
// one, from it on the update revision.
func Example_podsAndClaims() {
	set, err := decode.Typed[api.StatefulSet]().Decode([]byte(`{
	"metadata": {"name": "web", "namespace": "shop", "uid": "u1"},
	"spec": {
		"replicas": 3, "ordinals": {"start": 1}, "serviceName": "nginx",
		"updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 2}},
		"selector": {"matchLabels": {"app": "web"}},
		"template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}},
		"volumeClaimTemplates": [{"metadata": {"name": "data"}}, {"metadata": {"name": "logs"}}]}}`))
	if err != nil {
		panic(err)
	}
	for ordinal := getStartOrdinal(set); ordinal <= getEndOrdinal(set); ordinal++ {
		pod, err := newVersionedStatefulSetPod(set, set, "web-6c5d", "web-7f9b", ordinal)
		if err != nil {
			panic(err)
		}
		claims, err := getPersistentVolumeClaims(set, pod)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s (%s.%s) revision %s, claims", pod.Name, pod.Spec.Hostname, pod.Spec.Subdomain, getPodRevision(pod))
		for _, c := range claims {
			fmt.Printf(" %s", c.Name)
		}
		fmt.Println()
	}
	// Output:
	// web-1 (web-1.nginx) revision web-6c5d, claims data-web-1 logs-web-1
	// web-2 (web-2.nginx) revision web-6c5d, claims data-web-2 logs-web-2
	// web-3 (web-3.nginx) revision web-7f9b, claims data-web-3 logs-web-3
}
