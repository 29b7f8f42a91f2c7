package resourcequota_test

import (
	"fmt"

	"github.com/kcmlab/kcm/ctrl/resourcequota"
)

// ExampleDescriptor: the controller as --controllers and --help know it —
// kube-controller-manager's name, alias, worker flag and sync period —
// and the three queues its workqueue metrics are labelled with.
func ExampleDescriptor() {
	d := resourcequota.Descriptor()
	fmt.Println(d.Name, d.Aliases, "on by default:", !d.DisabledByDefault)
	fmt.Printf("--%s=%d\n", d.Concurrency.Name, d.Concurrency.Default)
	for _, f := range d.Flags {
		fmt.Printf("--%s=%s\n", f.Name, f.NewValue())
	}
	fmt.Println(resourcequota.PrimaryQueue, resourcequota.PriorityQueue, resourcequota.ResourceChangesQueue)
	// Output:
	// resourcequota-controller [resourcequota] on by default: true
	// --concurrent-resource-quota-syncs=5
	// --resource-quota-sync-period=5m0s
	// resourcequota_primary resourcequota_priority resource_quota_controller_resource_changes
}
