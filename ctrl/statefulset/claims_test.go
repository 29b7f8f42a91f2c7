package statefulset

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/kube/api"
)

// Owner references written compactly: "Kind/name/uid" with "+c" for a
// controller reference.
func refs(specs ...string) []api.OwnerReference {
	out := []api.OwnerReference{}
	for _, s := range specs {
		c := strings.HasSuffix(s, "+c")
		parts := strings.Split(strings.TrimSuffix(s, "+c"), "/")
		r := api.OwnerReference{Kind: parts[0], Name: parts[1], UID: parts[2], APIVersion: "v1"}
		switch r.Kind {
		case "StatefulSet", "ReplicaSet":
			r.APIVersion = "apps/v1"
		}
		if c {
			t := true
			r.Controller, r.BlockOwnerDeletion = &t, &t
		}
		out = append(out, r)
	}
	return out
}

func refStrings(rs []api.OwnerReference) []string {
	out := []string{}
	for _, r := range rs {
		s := r.Kind + "/" + r.Name + "/" + r.UID
		if r.IsController() {
			s += "+c"
		}
		out = append(out, s)
	}
	return out
}

const (
	retain = api.RetainPersistentVolumeClaimRetentionPolicyType
	del    = api.DeletePersistentVolumeClaimRetentionPolicyType
)

// retentionSet is StatefulSet web (uid-web) with 2 replicas and the
// policy whenScaled/whenDeleted ("" for no policy).
func retentionSet(scaled, deleted api.PersistentVolumeClaimRetentionPolicyType) *api.StatefulSet {
	two := int32(2)
	set := &api.StatefulSet{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "ns", UID: "uid-web"},
		Spec: api.StatefulSetSpec{Replicas: &two, VolumeClaimTemplates: claimTemplates("data")}}
	if scaled != "" {
		set.Spec.PersistentVolumeClaimRetentionPolicy = &api.StatefulSetPersistentVolumeClaimRetentionPolicy{WhenScaled: scaled, WhenDeleted: deleted}
	}
	return set
}

// retentionPod is pod web-<ordinal> with uid uid-web-<ordinal>.
func retentionPod(ordinal int) *api.Pod {
	name := fmt.Sprintf("web-%d", ordinal)
	return &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "ns", UID: "uid-" + name}}
}

func claimWith(r []api.OwnerReference) *api.PersistentVolumeClaim {
	return &api.PersistentVolumeClaim{ObjectMeta: api.ObjectMeta{Name: "data-web-1", Namespace: "ns", OwnerReferences: r}}
}

func TestGetPersistentVolumeClaimRetentionPolicy(t *testing.T) {
	if p := getPersistentVolumeClaimRetentionPolicy(retentionSet("", "")); p.WhenScaled != retain || p.WhenDeleted != retain {
		t.Errorf("no policy: %+v, want Retain/Retain", p)
	}
	if p := getPersistentVolumeClaimRetentionPolicy(retentionSet(del, retain)); p.WhenScaled != del || p.WhenDeleted != retain {
		t.Errorf("Delete/Retain: %+v", p)
	}
}

// Kubernetes' isClaimOwnerUpToDate over every combination of policy, pod
// in or out of range, our references present or not and unrelated
// non-controller references: up to date exactly when the set and pod
// references are what the policy wants.
func TestIsClaimOwnerUpToDate(t *testing.T) {
	cases := []struct {
		name             string
		scaled, deleted  api.PersistentVolumeClaimRetentionPolicyType
		ordinal          int // replicas 2: ordinal 2 is scaled down
		wantPod, wantSet bool
	}{
		{"Retain/Retain", retain, retain, 1, false, false},
		{"no policy is Retain/Retain", "", "", 1, false, false},
		{"whenDeleted Delete", retain, del, 1, false, true},
		{"whenDeleted Delete, scaled down", retain, del, 2, false, true},
		{"whenScaled Delete, remains", del, retain, 1, false, false},
		{"whenScaled Delete, scaled down", del, retain, 2, true, false},
		{"both Delete, remains", del, del, 1, false, true},
		{"both Delete, scaled down", del, del, 2, true, false},
		{"unknown policy is Retain/Retain", "Sometimes", retain, 2, false, false},
	}
	for _, tc := range cases {
		for _, others := range []bool{false, true} {
			for _, hasPod := range []bool{false, true} {
				for _, hasSet := range []bool{false, true} {
					set, pod := retentionSet(tc.scaled, tc.deleted), retentionPod(tc.ordinal)
					var specs []string
					if hasPod {
						specs = append(specs, "Pod/"+pod.Name+"/"+pod.UID+"+c")
					}
					if hasSet {
						specs = append(specs, "StatefulSet/web/uid-web+c")
					}
					if others {
						specs = append(specs, "Pod/rand1/rand1-uid", "Pod/rand2/rand2-uid")
					}
					claim := claimWith(refs(specs...))
					want := hasPod == tc.wantPod && hasSet == tc.wantSet
					if got := isClaimOwnerUpToDate(zerolog.Nop(), claim, set, pod); got != want {
						t.Errorf("%s, refs %v: %v, want %v", tc.name, specs, got, want)
					}
				}
			}
		}
	}
}

// The exceptions of isClaimOwnerUpToDate: a stale reference (our name,
// another UID) leaves the claim alone; another controller leaves it alone
// unless our references are also there (they must go); a non-controller
// reference of ours must become a controller one.
func TestIsClaimOwnerUpToDateEdgeCases(t *testing.T) {
	cases := []struct {
		name            string
		scaled, deleted api.PersistentVolumeClaimRetentionPolicyType
		refs            []string
		want            bool
	}{
		{"pod controller, scaled down", del, del, []string{"Pod/web-2/uid-web-2+c"}, true},
		{"pod non-controller", del, del, []string{"Pod/web-2/uid-web-2"}, false},
		{"stale pod ref", del, del, []string{"Pod/web-2/uid-old+c"}, true},
		{"stale pod ref, not controller", del, del, []string{"Pod/web-2/uid-old"}, true},
		// The stale reference wins over our valid one: left alone.
		{"stale pod ref beside our set ref", retain, del, []string{"Pod/web-2/uid-old+c", "StatefulSet/web/uid-web+c"}, true},
		{"pod and another controller", del, del, []string{"Pod/web-2/uid-web-2+c", "Pod/random/random+c"}, false},
		{"another controller alone", del, del, []string{"ReplicaSet/rs/uid-rs+c"}, true},
		{"another controller, Retain/Retain ignores it", retain, retain, []string{"ReplicaSet/rs/uid-rs+c"}, true},
		{"set controller", retain, del, []string{"StatefulSet/web/uid-web+c"}, true},
		{"set non-controller", retain, del, []string{"StatefulSet/web/uid-web"}, false},
		{"stale set ref", retain, del, []string{"StatefulSet/web/uid-old+c"}, true},
		{"set and another controller", retain, del, []string{"StatefulSet/web/uid-web+c", "StatefulSet/random/random+c"}, false},
		{"set ref under Retain/Retain", retain, retain, []string{"StatefulSet/web/uid-web+c"}, false},
		{"a non-controller owner of another name", retain, retain, []string{"ConfigMap/c/uid-c"}, true},
	}
	for _, tc := range cases {
		set, pod := retentionSet(tc.scaled, tc.deleted), retentionPod(2)
		if got := isClaimOwnerUpToDate(zerolog.Nop(), claimWith(refs(tc.refs...)), set, pod); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Kubernetes' updateClaimOwnerRefForSetAndPod: our references (by name
// and kind, any UID) removed, then the owners the policy wants added as
// controllers — none when another controller owns the claim. Afterwards
// the claim is up to date, unless a stale or foreign controller makes
// the claim one the controller leaves as it is.
func TestUpdateClaimOwnerRefForSetAndPod(t *testing.T) {
	cases := []struct {
		name            string
		scaled, deleted api.PersistentVolumeClaimRetentionPolicyType
		ordinal         int
		in, want        []string
	}{
		{"Retain/Retain drops ours", retain, retain, 1, []string{"StatefulSet/web/uid-web+c", "Pod/web-1/uid-web-1+c", "ConfigMap/c/uid-c"}, []string{"ConfigMap/c/uid-c"}},
		{"whenDeleted Delete adds the set", retain, del, 1, nil, []string{"StatefulSet/web/uid-web+c"}},
		{"whenDeleted Delete keeps others first", retain, del, 1, []string{"ConfigMap/c/uid-c"}, []string{"ConfigMap/c/uid-c", "StatefulSet/web/uid-web+c"}},
		{"non-controller ref made controller", retain, del, 1, []string{"StatefulSet/web/uid-web"}, []string{"StatefulSet/web/uid-web+c"}},
		{"whenScaled Delete, remains: nothing", del, retain, 1, []string{"Pod/web-1/uid-web-1+c"}, []string{}},
		{"whenScaled Delete, scaled down: the pod", del, retain, 2, nil, []string{"Pod/web-2/uid-web-2+c"}},
		{"both, remains: the set", del, del, 1, []string{"Pod/web-1/uid-web-1+c"}, []string{"StatefulSet/web/uid-web+c"}},
		{"both, scaled down: the pod, not the set", del, del, 2, []string{"StatefulSet/web/uid-web+c"}, []string{"Pod/web-2/uid-web-2+c"}},
		// A stale reference counts as an unexpected controller: ours are
		// scrubbed and none added (the claim is left to the garbage
		// collector; isClaimOwnerUpToDate never asks for this update).
		{"stale refs scrubbed, none added", del, del, 2, []string{"StatefulSet/web/uid-old+c", "Pod/web-2/uid-old+c"}, []string{}},
		{"another controller: ours scrubbed, none added", del, del, 1, []string{"StatefulSet/web/uid-web+c", "ReplicaSet/rs/uid-rs+c"}, []string{"ReplicaSet/rs/uid-rs+c"}},
	}
	for _, tc := range cases {
		set, pod := retentionSet(tc.scaled, tc.deleted), retentionPod(tc.ordinal)
		claim := claimWith(refs(tc.in...))
		updateClaimOwnerRefForSetAndPod(zerolog.Nop(), claim, set, pod)
		if got, want := refStrings(claim.OwnerReferences), refStrings(refs(tc.want...)); !slices.Equal(got, want) {
			t.Errorf("%s: refs %v, want %v", tc.name, got, want)
		}
		if !strings.HasPrefix(tc.name, "stale") && !isClaimOwnerUpToDate(zerolog.Nop(), claim, set, pod) {
			t.Errorf("%s: not up to date after the update", tc.name)
		}
	}
}

func TestHasUnexpectedController(t *testing.T) {
	cases := []struct {
		name            string
		scaled, deleted api.PersistentVolumeClaimRetentionPolicyType
		refs            []string
		want            bool
	}{
		{"none", del, del, nil, false},
		{"ours", del, del, []string{"StatefulSet/web/uid-web+c", "Pod/web-1/uid-web-1+c"}, false},
		{"other owner, not controller", del, del, []string{"ReplicaSet/rs/uid-rs"}, false},
		{"other controller", del, del, []string{"ReplicaSet/rs/uid-rs+c"}, true},
		{"other controller under Retain/Retain", retain, retain, []string{"ReplicaSet/rs/uid-rs+c"}, false},
		{"our set's name, other UID", retain, del, []string{"StatefulSet/web/uid-old"}, true},
		{"our pod's name, other UID", del, retain, []string{"Pod/web-1/uid-old"}, true},
		{"a pod of another name as controller", del, retain, []string{"Pod/web-9/uid-web-9+c"}, true},
	}
	for _, tc := range cases {
		if got := hasUnexpectedController(claimWith(refs(tc.refs...)), retentionSet(tc.scaled, tc.deleted), retentionPod(1)); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestOwnerRefPredicates(t *testing.T) {
	set, pod := retentionSet(del, del), retentionPod(1)
	cases := []struct {
		refs                              []string
		nonController, staleSet, stalePod bool
	}{
		{nil, false, false, false},
		{[]string{"StatefulSet/web/uid-web+c"}, false, false, false},
		{[]string{"StatefulSet/web/uid-web"}, true, false, false},
		{[]string{"Pod/web-1/uid-web-1"}, true, false, false},
		{[]string{"StatefulSet/web/uid-old"}, false, true, false},
		{[]string{"Pod/web-1/uid-old+c"}, false, false, true},
		// Only the first reference of the name counts.
		{[]string{"Pod/web-1/uid-web-1+c", "Pod/web-1/uid-old+c"}, false, false, false},
		// A reference by UID alone (another name) is still ours for hasNonControllerOwner.
		{[]string{"Pod/renamed/uid-web-1"}, true, false, false},
	}
	for _, tc := range cases {
		claim := claimWith(refs(tc.refs...))
		if got := hasNonControllerOwner(claim, set, pod); got != tc.nonController {
			t.Errorf("%v: hasNonControllerOwner %v", tc.refs, got)
		}
		if got := hasStaleOwnerRef(claim, &set.ObjectMeta, setGVK); got != tc.staleSet {
			t.Errorf("%v: hasStaleOwnerRef(set) %v", tc.refs, got)
		}
		if got := hasStaleOwnerRef(claim, &pod.ObjectMeta, podGVK); got != tc.stalePod {
			t.Errorf("%v: hasStaleOwnerRef(pod) %v", tc.refs, got)
		}
	}
}

// Kubernetes' getPersistentVolumeClaims: each template claim (all of it,
// as read) named <claim>-<set>-<ordinal> in the set's namespace, the
// selector's matchLabels written over the template's labels.
func TestGetPersistentVolumeClaimsJSON(t *testing.T) {
	set := pcSet(t, nil)
	claims, err := getPersistentVolumeClaims(set, namedPod("web-2"))
	if err != nil || len(claims) != 1 {
		t.Fatalf("%v (%d claims)", err, len(claims))
	}
	raw, _ := claims[0].Original()
	jsonEqual(t, "claim JSON", raw, `{"apiVersion":"v1","kind":"PersistentVolumeClaim",
	"metadata":{"name":"data-web-2","namespace":"ns","labels":{"app":"web","tier":"db"},"annotations":{"backup":"daily"}},
	"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}},
	 "volumeAttributesClassName":"gold","dataSourceRef":{"kind":"VolumeSnapshot","name":"snap","apiGroup":"snapshot.storage.k8s.io"}},
	"status":{"phase":"Pending"}}`)
	if claims[0].Name != "data-web-2" || claims[0].Namespace != "ns" {
		t.Errorf("typed claim %s/%s", claims[0].Namespace, claims[0].Name)
	}
}

func TestGetPersistentVolumeClaimsLabels(t *testing.T) {
	cases := []struct {
		name     string
		template map[string]string
		selector map[string]string
		want     map[string]string
	}{
		{"no template labels: the selector's", nil, map[string]string{"app": "web"}, map[string]string{"app": "web"}},
		{"merged, selector wins", map[string]string{"app": "x", "tier": "db"}, map[string]string{"app": "web"}, map[string]string{"app": "web", "tier": "db"}},
		{"template only", map[string]string{"tier": "db"}, nil, map[string]string{"tier": "db"}},
		{"neither", nil, nil, nil},
	}
	for _, tc := range cases {
		set := &api.StatefulSet{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "ns"},
			Spec: api.StatefulSetSpec{VolumeClaimTemplates: []api.PersistentVolumeClaim{{ObjectMeta: api.ObjectMeta{Name: "d", Labels: tc.template}}}}}
		if tc.selector != nil {
			set.Spec.Selector = &api.LabelSelector{MatchLabels: tc.selector}
		}
		claims, err := getPersistentVolumeClaims(set, namedPod("web-0"))
		if err != nil {
			t.Fatal(err)
		}
		if got := claims[0].Labels; fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: labels %v, want %v", tc.name, got, tc.want)
		}
		if len(tc.template) > 0 && tc.template["app"] == "x" && set.Spec.VolumeClaimTemplates[0].Labels["app"] != "x" {
			t.Errorf("%s: the set's template was changed", tc.name)
		}
	}
}
