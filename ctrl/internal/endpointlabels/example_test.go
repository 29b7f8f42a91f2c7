package endpointlabels_test

import (
	"fmt"

	"github.com/kcmlab/kcm/ctrl/internal/endpointlabels"
)

// The keys are Kubernetes' own: a slice kube-controller-manager wrote is
// found by kcm's selector, and the other way round.
func Example() {
	fmt.Println(endpointlabels.LabelServiceName)
	fmt.Println(endpointlabels.LabelManagedBy)
	fmt.Println(endpointlabels.AnnotationLastChangeTriggerTime)
	// Output:
	// kubernetes.io/service-name
	// endpointslice.kubernetes.io/managed-by
	// endpoints.kubernetes.io/last-change-trigger-time
}
