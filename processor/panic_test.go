package processor

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/internal/testing/syncbuf"
	"github.com/kcmlab/kcm/kube/api"
)

// TestPanickingHandlerIsIsolated: one handler panics on every notification.
// The other handler receives all of them in order; the panicking one keeps
// being called, each panic is logged with the handler, the notification,
// the key, the value and a stack, and counted in the metric and accessor.
func TestPanickingHandlerIsIsolated(t *testing.T) {
	const n = 50
	logs := &syncbuf.Buffer{}
	reg := prometheus.NewRegistry()
	p := mustNew(t, Options[*api.Pod]{Name: "pods", Logger: zerolog.New(logs), Registerer: reg})

	entered := make(chan string, n+1)
	release := make(chan struct{})
	bad := mustAdd(t, p, HandlerFuncs[*api.Pod]{
		AddFunc: func(obj *api.Pod, _ bool) {
			entered <- obj.Name
			if obj.Name == "last" {
				<-release
				return
			}
			panic(fmt.Sprintf("boom on %s", obj.Name))
		},
		UpdateFunc: func(_, obj *api.Pod) { entered <- obj.Name; panic("boom on update") },
		DeleteFunc: func(obj *api.Pod, _ bool) { entered <- obj.Name; panic("boom on delete") },
	}, HandlerOptions{Name: "bad"})
	good := newRecorder()
	mustAdd(t, p, good, HandlerOptions{Name: "good"})
	running(t, p)

	var want []event
	for i := range n {
		o := pod("ns", fmt.Sprint(i), i+1)
		switch i % 3 {
		case 0:
			p.Distribute(AddNotification(o, i < 10)) // the first ones are initial-list adds
			want = append(want, event{Kind: "add", Key: o.Key(), RV: o.ResourceVersion, Flag: i < 10})
		case 1:
			p.Distribute(UpdateNotification(o, o))
			want = append(want, event{Kind: "update", Key: o.Key(), RV: o.ResourceVersion, OldRV: o.ResourceVersion})
		case 2:
			p.Distribute(DeleteNotification(o, false))
			want = append(want, event{Kind: "delete", Key: o.Key(), RV: o.ResourceVersion})
		}
	}
	p.Distribute(AddNotification(pod("ns", "last", 1), false))
	got := good.take(t, n+1)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("good handler event %d = %v, want %v", i, got[i], want[i])
		}
	}
	// The bad handler is inside "last", so all n panicking calls are done.
	for i := 0; i <= n; i++ {
		<-entered
	}
	if bad.Panics() != n || bad.Delivered() != n {
		t.Fatalf("Panics()=%d Delivered()=%d, want %d %d", bad.Panics(), bad.Delivered(), n, n)
	}
	if !bad.HasSynced() {
		t.Fatal("initial-list adds that panicked must still count as handled")
	}
	close(release)

	if v := counterValue(t, reg, "informer_handler_panics_total", map[string]string{"informer": "pods", "handler": "bad"}); v != n {
		t.Fatalf("informer_handler_panics_total{handler=bad} = %v, want %d", v, n)
	}
	lines := logs.Lines()
	if len(lines) != n {
		t.Fatalf("%d log lines, want %d", len(lines), n)
	}
	var first map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatal(err)
	}
	wantFields := map[string]any{"level": "error", "informer": "pods", "handler": "bad", "notification": "add",
		"key": "ns/0", "panic": "boom on 0"}
	for k, v := range wantFields {
		if first[k] != v {
			t.Errorf("log field %s = %v, want %v (line %s)", k, first[k], v, lines[0])
		}
	}
	if stack, _ := first["stack"].(string); !strings.Contains(stack, "panic_test.go") {
		t.Errorf("stack does not reach the panicking handler: %q", stack)
	}
}

// TestPanicCounterSharedAcrossProcessors: every informer's processor
// registers the same family with one Registerer.
func TestPanicCounterSharedAcrossProcessors(t *testing.T) {
	reg := prometheus.NewRegistry()
	mustNew(t, Options[*api.Pod]{Name: "pods", Registerer: reg})
	if _, err := New(Options[*api.ConfigMap]{Name: "configmaps", Registerer: reg}); err != nil {
		t.Fatalf("second processor on the same Registerer: %v", err)
	}
	clash := prometheus.NewGauge(prometheus.GaugeOpts{Name: "informer_handler_panics_total", Help: "x"})
	other := prometheus.NewRegistry()
	other.MustRegister(clash)
	if _, err := New(Options[*api.Pod]{Registerer: other}); err == nil {
		t.Fatal("New must fail when the metric name is taken by a different collector")
	}
}

// counterValue reads one counter series from reg.
func counterValue(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	metrics:
		for _, m := range f.GetMetric() {
			for _, lp := range m.GetLabel() {
				if labels[lp.GetName()] != lp.GetValue() {
					continue metrics
				}
			}
			return m.GetCounter().GetValue()
		}
	}
	t.Fatalf("no series %s%v", name, labels)
	return 0
}

func TestObjectKeyOfNil(t *testing.T) {
	if got := objectKey[*api.Pod](nil); got != "<nil>" {
		t.Fatalf("objectKey(nil) = %q", got)
	}
	if got := objectKey(pod("ns", "a", 1)); got != "ns/a" {
		t.Fatalf("objectKey = %q", got)
	}
}
