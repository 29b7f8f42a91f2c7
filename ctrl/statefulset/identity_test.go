package statefulset

import (
	"maps"
	"slices"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

func namedPod(name string) *api.Pod {
	return &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "ns"}}
}

// Kubernetes' getParentNameAndOrdinal: "(.*)-([0-9]+)$", greedy parent,
// the ordinal parsed as an int32.
func TestGetParentNameAndOrdinal(t *testing.T) {
	cases := []struct {
		name       string
		wantParent string
		wantOrd    int
	}{
		{"web-0", "web", 0},
		{"web-12", "web", 12},
		{"my-web-3", "my-web", 3},
		{"web-1-2", "web-1", 2},
		{"web-007", "web", 7},
		{"web", "", -1},
		{"web-", "", -1},
		{"web-a", "", -1},
		{"-5", "", 5},
		{"web-2147483647", "web", 2147483647},
		{"web-2147483648", "web", -1}, // beyond int32: parent kept, no ordinal
	}
	for _, tc := range cases {
		p, o := getParentNameAndOrdinal(namedPod(tc.name))
		if p != tc.wantParent || o != tc.wantOrd {
			t.Errorf("%q: (%q, %d), want (%q, %d)", tc.name, p, o, tc.wantParent, tc.wantOrd)
		}
		if getOrdinal(namedPod(tc.name)) != tc.wantOrd {
			t.Errorf("getOrdinal(%q) != %d", tc.name, tc.wantOrd)
		}
	}
}

// spec.ordinals.start shifts the range [start, start+replicas-1]
// (StatefulSetStartOrdinal, GA).
func TestOrdinalRange(t *testing.T) {
	i32 := func(v int32) *int32 { return &v }
	cases := []struct {
		name       string
		ordinals   *api.StatefulSetOrdinals
		replicas   *int32
		start, end int
		in, out    []string
	}{
		{"default start", nil, i32(3), 0, 2, []string{"web-0", "web-2"}, []string{"web-3", "web"}},
		{"start 5", &api.StatefulSetOrdinals{Start: 5}, i32(2), 5, 6, []string{"web-5", "web-6"}, []string{"web-4", "web-7", "web-0"}},
		{"scaled to 0", &api.StatefulSetOrdinals{Start: 1}, i32(0), 1, 0, nil, []string{"web-0", "web-1"}},
		{"nil replicas is 1", nil, nil, 0, 0, []string{"web-0"}, []string{"web-1"}},
	}
	for _, tc := range cases {
		set := &api.StatefulSet{ObjectMeta: api.ObjectMeta{Name: "web"}, Spec: api.StatefulSetSpec{Replicas: tc.replicas, Ordinals: tc.ordinals}}
		if s, e := getStartOrdinal(set), getEndOrdinal(set); s != tc.start || e != tc.end {
			t.Errorf("%s: range [%d, %d], want [%d, %d]", tc.name, s, e, tc.start, tc.end)
		}
		for _, n := range tc.in {
			if !podInOrdinalRange(namedPod(n), set) {
				t.Errorf("%s: %s not in range", tc.name, n)
			}
		}
		for _, n := range tc.out {
			if podInOrdinalRange(namedPod(n), set) {
				t.Errorf("%s: %s in range", tc.name, n)
			}
		}
	}
}

func TestPodAndClaimNames(t *testing.T) {
	set := &api.StatefulSet{ObjectMeta: api.ObjectMeta{Name: "web"}}
	if got := getPodName(set, 4); got != "web-4" {
		t.Errorf("getPodName: %s", got)
	}
	claim := &api.PersistentVolumeClaim{ObjectMeta: api.ObjectMeta{Name: "data"}}
	if got := getPersistentVolumeClaimName(set, claim, 4); got != "data-web-4" {
		t.Errorf("getPersistentVolumeClaimName: %s", got)
	}
	if !isMemberOf(set, namedPod("web-1")) || isMemberOf(set, namedPod("web2-1")) || isMemberOf(set, namedPod("my-web-1")) {
		t.Error("isMemberOf")
	}
}

// Kubernetes' identityMatches: ordinal ≥ 0, parent and name and namespace
// of the set, and the pod-name label equal to the name.
func TestIdentityMatches(t *testing.T) {
	set := &api.StatefulSet{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "ns"}}
	good := func() *api.Pod {
		p := namedPod("web-1")
		updateIdentity(set, p)
		return p
	}
	cases := []struct {
		name   string
		change func(p *api.Pod)
		want   bool
	}{
		{"matches", func(*api.Pod) {}, true},
		{"other set", func(p *api.Pod) { p.Name = "db-1"; p.Labels[StatefulSetPodNameLabel] = "db-1" }, false},
		{"no ordinal", func(p *api.Pod) { p.Name = "web"; p.Labels[StatefulSetPodNameLabel] = "web" }, false},
		{"leading zero", func(p *api.Pod) { p.Name = "web-01"; p.Labels[StatefulSetPodNameLabel] = "web-01" }, false},
		{"other namespace", func(p *api.Pod) { p.Namespace = "other" }, false},
		{"no pod-name label", func(p *api.Pod) { delete(p.Labels, StatefulSetPodNameLabel) }, false},
		{"wrong pod-name label", func(p *api.Pod) { p.Labels[StatefulSetPodNameLabel] = "web-2" }, false},
		{"pod-index label not checked", func(p *api.Pod) { delete(p.Labels, PodIndexLabel) }, true},
	}
	for _, tc := range cases {
		p := good()
		tc.change(p)
		if got := identityMatches(set, p); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Kubernetes' updateIdentity: name from the ordinal, the set's namespace,
// pod-name and pod-index labels; other labels kept.
func TestUpdateIdentity(t *testing.T) {
	set := &api.StatefulSet{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "ns"}}
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "web-3", Namespace: "elsewhere",
		Labels: map[string]string{"app": "web", StatefulSetPodNameLabel: "x", PodIndexLabel: "9"}}}
	updateIdentity(set, p)
	want := map[string]string{"app": "web", StatefulSetPodNameLabel: "web-3", PodIndexLabel: "3"}
	if p.Name != "web-3" || p.Namespace != "ns" || !maps.Equal(p.Labels, want) {
		t.Errorf("got %s/%s %v", p.Namespace, p.Name, p.Labels)
	}
	if !identityMatches(set, p) {
		t.Error("identity does not match after updateIdentity")
	}
	bare := namedPod("web-0")
	updateIdentity(set, bare)
	if bare.Labels[PodIndexLabel] != "0" {
		t.Errorf("nil labels: %v", bare.Labels)
	}
}

func claimTemplates(names ...string) []api.PersistentVolumeClaim {
	out := make([]api.PersistentVolumeClaim, len(names))
	for i, n := range names {
		out[i].Name = n
	}
	return out
}

// Kubernetes' storageMatches and updateStorage: one claim volume per
// template, named as the template, mounting <claim>-<set>-<ordinal>.
func TestStorage(t *testing.T) {
	set := &api.StatefulSet{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "ns"},
		Spec: api.StatefulSetSpec{VolumeClaimTemplates: claimTemplates("data", "logs")}}
	cases := []struct {
		name    string
		pod     string
		volumes []api.Volume
		match   bool
		after   []string // volume name=claim ("" for a non-claim volume)
	}{
		{"none", "web-1", nil, false, []string{"data=data-web-1", "logs=logs-web-1"}},
		{"both", "web-1", []api.Volume{claimVolume("logs", "logs-web-1"), claimVolume("data", "data-web-1")}, true,
			[]string{"data=data-web-1", "logs=logs-web-1"}},
		{"one missing", "web-1", []api.Volume{claimVolume("data", "data-web-1")}, false, []string{"data=data-web-1", "logs=logs-web-1"}},
		{"wrong claim", "web-1", []api.Volume{claimVolume("data", "data-web-2"), claimVolume("logs", "logs-web-1")}, false,
			[]string{"data=data-web-1", "logs=logs-web-1"}},
		{"not a claim volume", "web-1", []api.Volume{{Name: "data", EmptyDir: &api.EmptyDirVolumeSource{}}, claimVolume("logs", "logs-web-1")}, false,
			[]string{"data=data-web-1", "logs=logs-web-1"}},
		{"other volumes kept after", "web-1", []api.Volume{{Name: "cfg", EmptyDir: &api.EmptyDirVolumeSource{}}, claimVolume("data", "data-web-1"), claimVolume("logs", "logs-web-1")}, true,
			[]string{"data=data-web-1", "logs=logs-web-1", "cfg="}},
		{"no ordinal", "web", []api.Volume{claimVolume("data", "data-web-1"), claimVolume("logs", "logs-web-1")}, false,
			[]string{"data=data-web--1", "logs=logs-web--1"}},
	}
	for _, tc := range cases {
		p := namedPod(tc.pod)
		p.Spec.Volumes = tc.volumes
		if got := storageMatches(set, p); got != tc.match {
			t.Errorf("%s: storageMatches %v, want %v", tc.name, got, tc.match)
		}
		updateStorage(set, p)
		var got []string
		for _, v := range p.Spec.Volumes {
			c := ""
			if v.PersistentVolumeClaim != nil {
				c = v.PersistentVolumeClaim.ClaimName
			}
			got = append(got, v.Name+"="+c)
		}
		if !slices.Equal(got, tc.after) {
			t.Errorf("%s: updateStorage gave %v, want %v", tc.name, got, tc.after)
		}
		if tc.pod != "web" && !storageMatches(set, p) {
			t.Errorf("%s: storage does not match after updateStorage", tc.name)
		}
	}
}

func TestRevisionLabelAndBurst(t *testing.T) {
	p := namedPod("web-0")
	if getPodRevision(p) != "" {
		t.Error("revision of an unlabelled pod")
	}
	setPodRevision(p, "web-abc")
	if getPodRevision(p) != "web-abc" || p.Labels[StatefulSetRevisionLabel] != "web-abc" {
		t.Errorf("labels %v", p.Labels)
	}
	set := &api.StatefulSet{}
	if allowsBurst(set) {
		t.Error("OrderedReady (or unset) allows burst")
	}
	set.Spec.PodManagementPolicy = api.ParallelPodManagement
	if !allowsBurst(set) {
		t.Error("Parallel does not allow burst")
	}
}

// Kubernetes' ascendingOrdinal and descendingOrdinal: pods without an
// ordinal (-1) first ascending, last descending.
func TestSortByOrdinal(t *testing.T) {
	pods := []*api.Pod{namedPod("web-10"), namedPod("web-2"), namedPod("x"), namedPod("web-0"), namedPod("web-1")}
	names := func() []string {
		var out []string
		for _, p := range pods {
			out = append(out, p.Name)
		}
		return out
	}
	sortByOrdinal(pods)
	if got, want := names(), []string{"x", "web-0", "web-1", "web-2", "web-10"}; !slices.Equal(got, want) {
		t.Errorf("ascending %v, want %v", got, want)
	}
	sortByOrdinalDescending(pods)
	if got, want := names(), []string{"web-10", "web-2", "web-1", "web-0", "x"}; !slices.Equal(got, want) {
		t.Errorf("descending %v, want %v", got, want)
	}
}
