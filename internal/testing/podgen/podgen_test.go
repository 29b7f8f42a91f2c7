package podgen_test

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/kcmlab/kcm/internal/testing/podgen"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/api/decode"
	"github.com/kcmlab/kcm/kube/labels"
	"github.com/kcmlab/kcm/kube/rest"
)

func decodePod(t *testing.T, data []byte) *api.Pod {
	t.Helper()
	p, err := decode.Typed[api.Pod]().Decode(data)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return p
}

func TestPodIsDeterministic(t *testing.T) {
	for _, i := range []int{0, 1, 4999, 123456} {
		if a, b := podgen.Pod(i), podgen.Pod(i); !bytes.Equal(a, b) {
			t.Errorf("Pod(%d) differs between calls", i)
		}
	}
	if bytes.Equal(podgen.Pod(1), podgen.Pod(2)) {
		t.Error("Pod(1) == Pod(2)")
	}
}

// TestPodShape checks the fields a Deployment's running pod has on a real
// cluster, decoded with kcm's typed codec.
func TestPodShape(t *testing.T) {
	for _, i := range []int{0, 1, 5, 10, 77, 4096} {
		raw := podgen.Pod(i)
		p := decodePod(t, raw)
		m := &p.ObjectMeta
		if p.Kind != "Pod" || p.APIVersion != "v1" {
			t.Errorf("pod %d: type %q %q", i, p.APIVersion, p.Kind)
		}
		ref := m.ControllerRef()
		switch {
		case ref == nil || ref.Kind != "ReplicaSet" || ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion:
			t.Errorf("pod %d: controller ref %+v", i, m.OwnerReferences)
		case m.GenerateName != ref.Name+"-" || len(m.Name) != len(m.GenerateName)+5:
			// ReplicaSet pods are named <rs>-<5 random chars>.
			t.Errorf("pod %d: name %q generateName %q owner %q", i, m.Name, m.GenerateName, ref.Name)
		case m.Labels["app"] == "" || ref.Name != m.Labels["app"]+"-"+m.Labels["pod-template-hash"]:
			t.Errorf("pod %d: labels %v owner %q", i, m.Labels, ref.Name)
		case m.UID == "" || m.Namespace == "" || m.CreationTimestamp.IsZero() || len(m.Annotations) == 0:
			t.Errorf("pod %d: metadata %+v", i, m)
		case m.ResourceVersion != strconv.Itoa(podgen.BaseResourceVersion+i):
			t.Errorf("pod %d: resourceVersion %q", i, m.ResourceVersion)
		}
		if !bytes.Contains(raw, []byte(`"manager":"kube-controller-manager","operation":"Update"`)) ||
			!bytes.Contains(raw, []byte(`"manager":"kubelet","operation":"Update"`)) ||
			!bytes.Contains(raw, []byte(`"subresource":"status"`)) {
			t.Errorf("pod %d: managedFields entries missing", i)
		}
		checkSpec(t, i, &p.Spec)
		checkStatus(t, i, p)
	}
}

func checkSpec(t *testing.T, i int, s *api.PodSpec) {
	t.Helper()
	if n := len(s.Containers); n < 1 || n > 2 {
		t.Errorf("pod %d: %d containers", i, n)
	}
	c := s.Containers[0]
	if len(c.Ports) == 0 || len(c.Env) == 0 || len(c.Resources.Requests) == 0 || len(c.Resources.Limits) == 0 {
		t.Errorf("pod %d: main container %+v", i, c)
	}
	var token *api.Volume
	for k := range s.Volumes {
		if s.Volumes[k].Projected != nil {
			token = &s.Volumes[k]
		}
	}
	if token == nil || len(token.Projected.Sources) != 3 || token.Projected.Sources[0].ServiceAccountToken == nil ||
		token.Projected.Sources[1].ConfigMap == nil || token.Projected.Sources[1].ConfigMap.Name != "kube-root-ca.crt" ||
		token.Projected.Sources[2].DownwardAPI == nil {
		t.Fatalf("pod %d: no kube-api-access projected volume: %+v", i, s.Volumes)
	}
	mounted := false
	for _, vm := range c.VolumeMounts {
		mounted = mounted || (vm.Name == token.Name && vm.MountPath == "/var/run/secrets/kubernetes.io/serviceaccount")
	}
	if !mounted {
		t.Errorf("pod %d: token volume %s not mounted: %+v", i, token.Name, c.VolumeMounts)
	}
	if len(s.Tolerations) != 2 || *s.Tolerations[0].TolerationSeconds != 300 || s.NodeName == "" {
		t.Errorf("pod %d: tolerations %+v node %q", i, s.Tolerations, s.NodeName)
	}
}

func checkStatus(t *testing.T, i int, p *api.Pod) {
	t.Helper()
	st := &p.Status
	for _, c := range []api.PodConditionType{api.PodReadyToStartContainers, api.PodInitialized, api.PodReady,
		api.ContainersReady, api.PodScheduled} {
		if cond := api.GetPodCondition(st, c); cond == nil || cond.Status != api.ConditionTrue {
			t.Errorf("pod %d: condition %s = %+v", i, c, cond)
		}
	}
	if !api.IsPodReady(p) || st.Phase != api.PodRunning || st.PodIP == "" || len(st.PodIPs) != 1 ||
		st.HostIP == "" || len(st.HostIPs) != 1 || st.QOSClass != "Burstable" || st.StartTime == nil {
		t.Errorf("pod %d: status %+v", i, st)
	}
	if len(st.ContainerStatuses) != len(p.Spec.Containers) {
		t.Fatalf("pod %d: %d statuses for %d containers", i, len(st.ContainerStatuses), len(p.Spec.Containers))
	}
	for _, cs := range st.ContainerStatuses {
		if cs.State.Running == nil || cs.ImageID == "" || cs.ContainerID == "" || !cs.Ready {
			t.Errorf("pod %d: container status %+v", i, cs)
		}
	}
}

// TestSizes pins the sizes the package documents: 4.8-6.1 KB with
// managedFields (mean about 5.2 KB), 3.0-3.9 KB without (mean about
// 3.3 KB), managedFields about 2 KB a pod on average. "About" is the
// rounding the doc uses: a mean of 5.2 KB is 5150 to 5249 bytes.
func TestSizes(t *testing.T) {
	const n = 600
	stripped := func(i int) int {
		s, err := decode.StripManagedFields(podgen.Pod(i))
		if err != nil {
			t.Fatal(err)
		}
		return len(s)
	}
	tests := []struct {
		name               string
		size               func(i int) int
		min, max           int // every pod
		meanMin, meanLimit int // the mean, in [meanMin, meanLimit)
	}{
		{"full", func(i int) int { return len(podgen.Pod(i)) }, 4800, 6100, 5150, 5250},
		{"stripped", stripped, 3000, 3900, 3250, 3350},
		{"managedFields", func(i int) int { return len(podgen.Pod(i)) - stripped(i) }, 0, 6100, 1500, 2500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			total := 0
			for i := 0; i < n; i++ {
				sz := tt.size(i)
				total += sz
				if sz < tt.min || sz > tt.max {
					t.Errorf("pod %d: %d bytes, want %d..%d", i, sz, tt.min, tt.max)
				}
			}
			mean := total / n
			t.Logf("mean %d bytes", mean)
			if mean < tt.meanMin || mean >= tt.meanLimit {
				t.Errorf("mean %d bytes, want %d..%d", mean, tt.meanMin, tt.meanLimit-1)
			}
		})
	}
}

func TestSpreadOverNamespacesAndNodes(t *testing.T) {
	ns, nodes := map[string]int{}, map[string]int{}
	// ReplicaSet s lives in namespace s mod Namespaces: one pod from each
	// of the first 4*Namespaces sets must reach every namespace.
	for i := 0; i < 4*podgen.ReplicasPerSet*podgen.Namespaces; i += podgen.ReplicasPerSet {
		p := decodePod(t, podgen.Pod(i))
		ns[p.Namespace]++
		nodes[p.Spec.NodeName]++
	}
	if len(ns) != podgen.Namespaces {
		t.Errorf("%d namespaces, want %d", len(ns), podgen.Namespaces)
	}
	if len(nodes) < podgen.Nodes/3 {
		t.Errorf("pods on %d nodes, want most of %d", len(nodes), podgen.Nodes)
	}
}

func TestReplicaSetOwnsItsPods(t *testing.T) {
	for _, set := range []int{0, 3, 250} {
		rs, err := decode.Typed[api.ReplicaSet]().Decode(podgen.ReplicaSet(set))
		if err != nil {
			t.Fatal(err)
		}
		sel, err := labels.LabelSelectorAsSelector(rs.Spec.Selector)
		if err != nil {
			t.Fatal(err)
		}
		if rs.Spec.Replicas == nil || *rs.Spec.Replicas != podgen.ReplicasPerSet || !sel.Matches(rs.Spec.Template.Labels) {
			t.Errorf("rs %d: spec %+v", set, rs.Spec)
		}
		for i := set * podgen.ReplicasPerSet; i < (set+1)*podgen.ReplicasPerSet; i++ {
			p := decodePod(t, podgen.Pod(i))
			if !p.IsControlledBy(rs.UID) || !sel.Matches(p.Labels) || p.Namespace != rs.Namespace {
				t.Errorf("pod %d not owned by rs %d (%s/%s)", i, set, rs.Namespace, rs.Name)
			}
		}
	}
}

func TestListDecodes(t *testing.T) {
	const n = 25
	var names []string
	meta, err := rest.DecodeList(bytes.NewReader(podgen.List(n, "777")), decode.Raw(), func(o *api.RawObject) error {
		names = append(names, o.Name)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if meta.ResourceVersion != "777" || len(names) != n {
		t.Fatalf("rv %q, %d items", meta.ResourceVersion, len(names))
	}
	for i, name := range names {
		if want := decodePod(t, podgen.Pod(i)).Name; name != want {
			t.Errorf("item %d: %q, want %q", i, name, want)
		}
	}
}
