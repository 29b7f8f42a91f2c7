package reconciler

import (
	"maps"
	"regexp"

	"github.com/kcmlab/kcm/kube/api"
)

// Labels, annotations and names the controller writes on EndpointSlices
// (k8s.io/api discovery/v1 and core/v1 constants). The controller shell
// lists its slices by LabelServiceName and LabelManagedBy.
const (
	// LabelManagedBy names the controller that manages a slice; this one
	// writes ControllerName, the EndpointSlice mirroring controller its own.
	LabelManagedBy = "endpointslice.kubernetes.io/managed-by"
	// LabelServiceName names the Service a slice belongs to.
	LabelServiceName = "kubernetes.io/service-name"
	// LabelHeadless is set, empty, on the slices of a Service without a
	// cluster IP.
	LabelHeadless = "service.kubernetes.io/headless"
	// ControllerName is kube-controller-manager's value for LabelManagedBy
	// (pkg/controller/endpointslice ControllerName); kcm keeps it, so that
	// either manager takes over the other's slices.
	ControllerName = "endpointslice-controller.k8s.io"
	// AnnotationLastChangeTriggerTime is the time of the earliest pod or
	// Service change behind a write.
	AnnotationLastChangeTriggerTime = "endpoints.kubernetes.io/last-change-trigger-time"
)

// isReservedLabel: the labels the controller sets itself, never copied
// from the Service (isReservedLabelKey).
func isReservedLabel(k string) bool {
	return k == LabelServiceName || k == LabelManagedBy || k == LabelHeadless
}

// sliceLabels returns the labels a slice of svc should carry — the
// Service's labels except the reserved ones, the headless label when the
// Service has no cluster IP, the service-name and managed-by labels — and
// whether the slice's own non-reserved labels differ from the Service's
// (setEndpointSliceLabels). As upstream, a change of only the reserved
// labels (the headless one included) is not reported: it alone never
// causes a write.
func sliceLabels(slice *api.EndpointSlice, svc *api.Service, controllerName string) (map[string]string, bool) {
	have := make(map[string]string, len(slice.Labels))
	for k, v := range slice.Labels {
		if !isReservedLabel(k) {
			have[k] = v
		}
	}
	want := make(map[string]string, len(svc.Labels)+3)
	for k, v := range svc.Labels {
		if !isReservedLabel(k) {
			want[k] = v
		}
	}
	changed := !maps.Equal(have, want)
	if !serviceIPSet(svc) {
		want[LabelHeadless] = ""
	}
	want[LabelServiceName] = svc.Name
	want[LabelManagedBy] = controllerName
	return want, changed
}

// serviceIPSet: the Service has a cluster IP (isServiceIPSet).
func serviceIPSet(svc *api.Service) bool {
	return svc.Spec.ClusterIP != api.ClusterIPNone && svc.Spec.ClusterIP != ""
}

// dnsSubdomain is apimachinery's DNS-1123 subdomain.
var dnsSubdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

// slicePrefix is the generateName of a Service's slices
// (getEndpointSlicePrefix): "<service>-" when apimachinery's
// NameIsDNSSubdomain(prefix, true) accepts it, else the Service's name.
// That check masks a trailing dash as its maskTrailingDash does — the
// last two characters become "a" — and then wants a DNS-1123 subdomain of
// at most 253 characters.
func slicePrefix(serviceName string) string {
	prefix := serviceName + "-"
	masked := prefix
	if len(prefix) > 1 {
		masked = prefix[:len(prefix)-2] + "a"
	}
	if len(masked) > 253 || !dnsSubdomain.MatchString(masked) {
		return serviceName
	}
	return prefix
}

// controllerRef is the ownerReference a slice carries to its Service
// (metav1.NewControllerRef with core/v1 Service): controller and
// blockOwnerDeletion set.
func controllerRef(svc *api.Service) api.OwnerReference {
	yes, block := true, true
	return api.OwnerReference{APIVersion: "v1", Kind: "Service", Name: svc.Name, UID: svc.UID,
		Controller: &yes, BlockOwnerDeletion: &block}
}

// ownedBy: the slice has an ownerReference to svc (by uid), whatever its
// controller flag (ownedBy).
func ownedBy(slice *api.EndpointSlice, svc *api.Service) bool {
	for _, o := range slice.OwnerReferences {
		if o.UID == svc.UID && o.Kind == "Service" && o.APIVersion == "v1" {
			return true
		}
	}
	return false
}
