package e2e_test

import (
	"fmt"
	"time"

	"github.com/kcmlab/kcm/internal/testing/e2e"
)

// Two runs of two specs: one passes under both managers, one fails under
// both for a known reason.
func Example() {
	basic := "[sig-apps] ReplicaSet should serve a basic image on each replica with a public image [Conformance]"
	rollover := "[sig-apps] Deployment deployment should support rollover [Conformance]"
	kube := e2e.Suite{Specs: []e2e.Spec{
		{Name: rollover, State: e2e.Passed, Duration: 21 * time.Second},
		{Name: basic, State: e2e.Failed, Duration: 2 * time.Minute, Failure: "Did not get expected responses", Where: "replica_set.go:230"},
	}}
	kcm := e2e.Suite{Specs: []e2e.Spec{
		{Name: rollover, State: e2e.Passed, Duration: 19 * time.Second},
		{Name: basic, State: e2e.Failed, Duration: 2 * time.Minute, Failure: "Did not get expected responses", Where: "replica_set.go:230"},
	}}
	known := []e2e.Reason{{Spec: "should serve a basic image", Kind: e2e.KwokNoContainers, Text: "sends HTTP requests to the pods"}}
	page := e2e.Page{
		Title: "e2e",
		Kube:  e2e.Run{Label: "kube-controller-manager", Managers: "kube-controller-manager --controllers=*", Wall: 150 * time.Second},
		KCM:   e2e.Run{Label: "kcm", Managers: "kcm; kube-controller-manager --controllers=*,-replicaset-controller", Wall: 145 * time.Second},
		Rows:  e2e.Compare(kube, kcm, known),
	}
	fmt.Print(page.Markdown())
	// Output:
	// # e2e
	//
	// - Run **kube-controller-manager**: kube-controller-manager --controllers=*; e2e wall time 2m30s.
	// - Run **kcm**: kcm; kube-controller-manager --controllers=*,-replicaset-controller; e2e wall time 2m25s.
	//
	// ## Summary
	//
	// | Verdict | Specs |
	// |---|---:|
	// | passed under both | 1 |
	// | REGRESSION: passes only under kube-controller-manager | 0 |
	// | failed under both | 1 |
	// | **total** | **2** |
	//
	// Specs that fail or are skipped under both managers, by reason:
	//
	// - failed under both: kwok: no real containers: 1
	//
	// ## Specs
	//
	// | # | Spec | kube-controller-manager | kcm | Verdict and reason |
	// |---:|---|---|---|---|
	// | 1 | [sig-apps] Deployment deployment should support rollover [Conformance] | passed 21s | passed 19s |  |
	// | 2 | [sig-apps] ReplicaSet should serve a basic image on each replica with a public image [Conformance] | **failed** 2m0s | **failed** 2m0s | failed under both: kwok: no real containers: sends HTTP requests to the pods |
	//
	// ## Failure messages
	//
	// The first 6 lines of ginkgo's failure message, per run.
	//
	// ### [sig-apps] ReplicaSet should serve a basic image on each replica with a public image [Conformance]
	//
	// - kube-controller-manager: failed at `replica_set.go:230`
	//
	//   ```
	//   Did not get expected responses
	//   ```
	//
	// - kcm: failed at `replica_set.go:230`
	//
	//   ```
	//   Did not get expected responses
	//   ```
}
