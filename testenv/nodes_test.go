package testenv

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/kcmlab/kcm/internal/testing/syncbuf"
)

func TestNodeObject(t *testing.T) {
	type want struct {
		labels    map[string]string // must be present with these values
		absent    []string          // labels that must not be there
		resources map[string]string
		podCIDR   string
		ip        string
	}
	defaults := map[string]string{"cpu": DefaultNodeCPU, "memory": DefaultNodeMemory, "pods": DefaultNodePods}
	for _, tc := range []struct {
		name  string
		spec  NodeSpec
		index int
		want  want
	}{
		{"defaults: no zone, default capacity", NodeSpec{Name: "n1"}, 1, want{
			labels: map[string]string{LabelHostname: "n1", "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64", "type": "kwok"},
			absent: []string{LabelZone, LabelRegion}, resources: defaults, podCIDR: "10.244.1.0/24", ip: "172.18.0.1"}},
		{"a zone brings the default region", NodeSpec{Name: "n2", Zone: "zone-b"}, 2, want{
			labels:    map[string]string{LabelZone: "zone-b", LabelRegion: DefaultRegion},
			resources: defaults, podCIDR: "10.244.2.0/24", ip: "172.18.0.2"}},
		{"explicit region and capacity", NodeSpec{Name: "n3", Zone: "z", Region: "r", CPU: "4", Memory: "8Gi", Pods: "10"}, 255, want{
			labels:    map[string]string{LabelZone: "z", LabelRegion: "r"},
			resources: map[string]string{"cpu": "4", "memory": "8Gi", "pods": "10"}, podCIDR: "10.244.255.0/24", ip: "172.18.0.255"}},
		{"region without zone", NodeSpec{Name: "n4", Region: "r"}, 3, want{
			labels: map[string]string{LabelRegion: "r"}, absent: []string{LabelZone}, resources: defaults,
			podCIDR: "10.244.3.0/24", ip: "172.18.0.3"}},
		{"extra labels win", NodeSpec{Name: "n5", Zone: "z", Labels: map[string]string{"type": "big", "team": "a"}}, 4, want{
			labels: map[string]string{"type": "big", "team": "a", LabelZone: "z"}, resources: defaults,
			podCIDR: "10.244.4.0/24", ip: "172.18.0.4"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj, err := nodeObject(tc.spec, tc.index)
			if err != nil {
				t.Fatal(err)
			}
			meta := obj["metadata"].(map[string]any)
			labels := meta["labels"].(map[string]string)
			for k, v := range tc.want.labels {
				if labels[k] != v {
					t.Errorf("label %s = %q, want %q (labels %v)", k, labels[k], v, labels)
				}
			}
			for _, k := range tc.want.absent {
				if _, ok := labels[k]; ok {
					t.Errorf("label %s is set: %v", k, labels)
				}
			}
			if a := meta["annotations"].(map[string]string); a[KwokNodeAnnotation] != KwokNodeAnnotationValue {
				t.Errorf("annotations %v do not hand the node to kwok", a)
			}
			spec := obj["spec"].(map[string]any)
			if spec["podCIDR"] != tc.want.podCIDR || !slices.Equal(spec["podCIDRs"].([]string), []string{tc.want.podCIDR}) {
				t.Errorf("spec %v, want podCIDR %s", spec, tc.want.podCIDR)
			}
			status := obj["status"].(map[string]any)
			for _, key := range []string{"capacity", "allocatable"} {
				got := status[key].(map[string]string)
				for k, v := range tc.want.resources {
					if got[k] != v {
						t.Errorf("%s[%s] = %q, want %q", key, k, got[k], v)
					}
				}
			}
			addrs := status["addresses"].([]map[string]string)
			if addrs[0]["type"] != "InternalIP" || addrs[0]["address"] != tc.want.ip || addrs[1]["address"] != tc.spec.Name {
				t.Errorf("addresses %v, want InternalIP %s and Hostname %s", addrs, tc.want.ip, tc.spec.Name)
			}
		})
	}
	if _, err := nodeObject(NodeSpec{}, 1); !errors.Is(err, ErrNoNodeName) {
		t.Errorf("nameless node: err = %v, want ErrNoNodeName", err)
	}
}

func TestKwokArgs(t *testing.T) {
	args := kwokArgs("/k", "/s.yaml", 4242, 40)
	for _, w := range []string{
		"--kubeconfig=/k", "--config=/s.yaml", "--manage-all-nodes=false",
		"--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake",
		"--manage-nodes-with-label-selector=testenv.kcm.local/heartbeat!=paused",
		"--node-lease-duration-seconds=40", "--server-address=127.0.0.1:4242", "--cidr=10.244.0.0/24",
	} {
		if !slices.Contains(args, w) {
			t.Errorf("kwok args %v lack %s", args, w)
		}
	}
}

func TestSchedulerArgsAndConfig(t *testing.T) {
	args := schedulerArgs("/cfg.yaml", "/certs", 4243)
	for _, w := range []string{"--config=/cfg.yaml", "--bind-address=127.0.0.1", "--secure-port=4243", "--cert-dir=/certs"} {
		if !slices.Contains(args, w) {
			t.Errorf("kube-scheduler args %v lack %s", args, w)
		}
	}
	b, err := marshalSchedulerConfig("/dir with space/kubeconfig")
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := yaml.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v:\n%s", err, b)
	}
	if got["apiVersion"] != "kubescheduler.config.k8s.io/v1" || got["kind"] != "KubeSchedulerConfiguration" {
		t.Errorf("config type %v/%v", got["apiVersion"], got["kind"])
	}
	if cc := got["clientConnection"].(map[string]any); cc["kubeconfig"] != "/dir with space/kubeconfig" {
		t.Errorf("clientConnection %v", cc)
	}
	if le := got["leaderElection"].(map[string]any); le["leaderElect"] != false {
		t.Errorf("leaderElection %v: leader election must be off explicitly (its default is on)", le)
	}
}

func TestConcatStages(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a/one.yaml", "apiVersion: kwok.x-k8s.io/v1alpha1\nkind: Stage\nmetadata:\n  name: one\n")
	write("b/two.yaml", "---\napiVersion: kwok.x-k8s.io/v1alpha1\nkind: Stage\nmetadata:\n  name: two") // no final newline
	write("c/kustomization.yaml", "kind: Kustomization\n")

	text, err := concatStages(dir, []string{"a/one.yaml", "b/two.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(strings.NewReader(text))
	var names []string
	for {
		var doc struct {
			Kind     string `yaml:"kind"`
			Metadata struct {
				Name string `yaml:"name"`
			} `yaml:"metadata"`
		}
		if err := dec.Decode(&doc); err != nil {
			break
		}
		if doc.Kind != "Stage" {
			t.Errorf("document of kind %q in:\n%s", doc.Kind, text)
		}
		names = append(names, doc.Metadata.Name)
	}
	if !slices.Equal(names, []string{"one", "two"}) {
		t.Errorf("stages %v, want [one two] in:\n%s", names, text)
	}
	for _, src := range []string{"# a/one.yaml", "# b/two.yaml"} {
		if !strings.Contains(text, src) {
			t.Errorf("output does not name its source %s", src)
		}
	}
	if _, err := concatStages(dir, []string{"a/one.yaml", "missing.yaml"}); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("a missing stage file: err = %v", err)
	}
	if _, err := concatStages(dir, []string{"c/kustomization.yaml"}); err == nil || !strings.Contains(err.Error(), "holds no Stage") {
		t.Errorf("a file that is no Stage: err = %v", err)
	}
}

// kube-scheduler is built like kube-apiserver (same module, version and
// linker flags) under its own name; kwok in a module of its own, with the
// list of its Stage files in its stamp and the stages file as an extra.
func TestNodeRecipes(t *testing.T) {
	s, api := schedulerRecipe(KubernetesVersion), apiserverRecipe(KubernetesVersion)
	if s.name != "kube-scheduler" || s.pkg != "k8s.io/kubernetes/cmd/kube-scheduler" || s.version != api.version || s.ldflags != api.ldflags {
		t.Errorf("scheduler recipe %+v", s)
	}
	if s.stamp() == api.stamp() || !strings.Contains(s.stamp(), "cmd/kube-scheduler") {
		t.Errorf("scheduler stamp %q", s.stamp())
	}
	k := kwokRecipe()
	if k.name != "kwok" || k.version != KwokVersion || k.pkg != "sigs.k8s.io/kwok/cmd/kwok" {
		t.Errorf("kwok recipe %+v", k)
	}
	if !slices.Equal(k.extras, []string{KwokStagesFile}) || k.finish == nil {
		t.Errorf("kwok recipe does not write its stages file: extras %v", k.extras)
	}
	for _, f := range kwokStages {
		if !strings.Contains(k.stamp(), f) {
			t.Errorf("kwok stamp %q lacks %s", k.stamp(), f)
		}
	}
	if strings.Contains(api.stamp(), "stages") {
		t.Errorf("kube-apiserver's stamp changed (%q): every cached build would be rebuilt", api.stamp())
	}
}

// A recipe's finish step runs after the build and writes its extras; a
// cached binary whose extra file is gone is rebuilt.
func TestBuilderWritesAndChecksExtras(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("the go command is required: %v", err)
	}
	var setups atomic.Int32
	r := helloRecipe(&setups)
	r.extras = []string{"hello.txt"}
	r.finish = func(ctx context.Context, g *goTool, dir string) error {
		return os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("extra\n"), 0o644)
	}
	cache := t.TempDir()
	b := &builder{cacheDir: cache, progress: &syncbuf.Buffer{}}
	bin, err := b.ensure(t.Context(), r)
	if err != nil {
		t.Fatal(err)
	}
	extra := filepath.Join(filepath.Dir(bin), "hello.txt")
	if data, err := os.ReadFile(extra); err != nil || string(data) != "extra\n" {
		t.Fatalf("extra file: %q, %v", data, err)
	}
	if _, err := b.ensure(t.Context(), r); err != nil || setups.Load() != 1 {
		t.Fatalf("cached build: setups %d, %v", setups.Load(), err)
	}
	if err := os.Remove(extra); err != nil {
		t.Fatal(err)
	}
	if _, err := b.ensure(t.Context(), r); err != nil || setups.Load() != 2 {
		t.Fatalf("a missing extra did not rebuild: setups %d, %v", setups.Load(), err)
	}
	if _, err := os.Stat(extra); err != nil {
		t.Errorf("the rebuild did not write the extra: %v", err)
	}

	// A failing finish installs nothing.
	r.version = "v0.0.2"
	r.finish = func(context.Context, *goTool, string) error { return errors.New("no stages here") }
	if _, err := b.ensure(t.Context(), r); err == nil || !strings.Contains(err.Error(), "no stages here") {
		t.Fatalf("err = %v, want the finish step's error", err)
	}
	if _, err := os.Stat(filepath.Join(cache, "hello-v0.0.2", "hello")); !os.IsNotExist(err) {
		t.Errorf("a failed finish installed the binary: %v", err)
	}
}

func TestStartSchedulerAndKwokReportEarlyExit(t *testing.T) {
	for _, tc := range []struct {
		name  string
		start func(*Cluster) error
		want  []string
	}{
		{"kube-scheduler", func(c *Cluster) error { return c.StartScheduler(testContext(t)) },
			[]string{"start kube-scheduler", "kube-scheduler exited", "exit status 2", "fake: bad flag --config="}},
		{"kwok", func(c *Cluster) error { return c.StartKwok(testContext(t)) },
			[]string{"start kwok", "kwok exited", "exit status 2", "fake: bad flag --kubeconfig="}},
		{"AddNodes starts kwok", func(c *Cluster) error { return c.AddNodes(testContext(t), NodeSpec{Name: "n"}) },
			[]string{"start kwok", "kwok exited"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := fakeCluster(t, time.Minute)
			bin := writeScript(t, "echo \"fake: bad flag $1\" >&2\nexit 2\n")
			c.opts.SchedulerBinary = bin
			c.opts.Kwok = &KwokFiles{Binary: bin, Stages: "/nonexistent"}
			err := tc.start(c)
			if err == nil {
				t.Fatal("started a process that exits")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

func TestNodeHelpersOnStoppedCluster(t *testing.T) {
	c := fakeCluster(t, time.Second)
	c.stopped = true
	c.opts.SchedulerBinary, c.opts.Kwok = "/nonexistent", &KwokFiles{Binary: "/nonexistent"}
	ctx := testContext(t)
	for name, err := range map[string]error{
		"StartScheduler":  c.StartScheduler(ctx),
		"StartKwok":       c.StartKwok(ctx),
		"AddNodes":        c.AddNodes(ctx, NodeSpec{Name: "n"}),
		"PauseHeartbeat":  c.PauseHeartbeat(ctx, "n"),
		"ResumeHeartbeat": c.ResumeHeartbeat(ctx, "n"),
	} {
		if !errors.Is(err, ErrStopped) {
			t.Errorf("%s after Stop = %v, want ErrStopped", name, err)
		}
	}
}

func TestWithoutNotReady(t *testing.T) {
	other := nodeTaint{Key: "dedicated", Value: "x", Effect: "NoSchedule"}
	noExec := nodeTaint{Key: TaintNodeNotReady, Effect: "NoExecute"}
	for _, tc := range []struct {
		name  string
		in    []nodeTaint
		want  []nodeTaint
		found bool
	}{
		{"none", nil, []nodeTaint{}, false},
		{"only the admission plugin's", []nodeTaint{{Key: TaintNodeNotReady, Effect: "NoSchedule"}}, []nodeTaint{}, true},
		{"others are kept, NoExecute too", []nodeTaint{other, {Key: TaintNodeNotReady, Effect: "NoSchedule"}, noExec}, []nodeTaint{other, noExec}, true},
	} {
		got, found := withoutNotReady(tc.in)
		if found != tc.found || !slices.Equal(got, tc.want) {
			t.Errorf("%s: withoutNotReady = %v, %t; want %v, %t", tc.name, got, found, tc.want, tc.found)
		}
	}
}
