package podgc

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/internal/testing/resttest"
	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/rest"
)

// logLines decodes the JSON lines of buf as "level message key=value"
// for the keys given.
func logLines(t *testing.T, buf *bytes.Buffer, keys ...string) []string {
	t.Helper()
	var out []string
	dec := json.NewDecoder(buf)
	for dec.More() {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		line := m["level"].(string) + " " + m["message"].(string)
		for _, k := range keys {
			if v, ok := m[k]; ok {
				b, _ := json.Marshal(v)
				line += " " + k + "=" + string(b)
			}
		}
		out = append(out, line)
	}
	return out
}

// TestLogs: the info and error lines kube-controller-manager writes —
// "Garbage collecting pods" with numPods only when the terminated rule has
// pods to delete, "PodGC is force deleting Pod" before each force
// deletion, the orphan and unscheduled rules' success lines, an error
// line per failure — and nothing above debug for a pass with nothing to
// do.
func TestLogs(t *testing.T) {
	f := newFixture(t, Config{TerminatedPodGCThreshold: 1, QuarantineTime: -1}, []*api.Pod{
		pod("a", 2*time.Minute, phase(api.PodSucceeded)), pod("b", time.Minute, phase(api.PodFailed)),
		pod("o", time.Minute, onNode("gone")), pod("u", time.Minute, terminating),
	}, nil)
	var buf bytes.Buffer
	f.c.log = zerolog.New(&buf).Level(zerolog.InfoLevel)
	f.api.Fail(resttest.On("delete", "pods").Named("ns/u"), resttest.Failure(500, "InternalError", "etcd is slow"))
	f.pass()
	want := []string{
		`info Garbage collecting pods numPods=1`,
		`info PodGC is force deleting Pod pod="ns/a"`,
		`info PodGC is force deleting Pod pod="ns/u"`,
		`error Failed to delete unscheduled terminating pod pod="ns/u"`,
	}
	if got := logLines(t, &buf, "numPods", "pod"); !slices.Equal(got, want) {
		t.Fatalf("first pass logged\n%q\nwant\n%q", got, want)
	}
	f.pass() // u, marked Failed, counts as terminated now; the orphan's node is checked
	want = []string{
		`info Garbage collecting pods numPods=1`,
		`info PodGC is force deleting Pod pod="ns/b"`,
		`info PodGC is force deleting Pod pod="ns/o"`,
		`info Forced deletion of orphaned Pod succeeded pod="ns/o"`,
		`info PodGC is force deleting Pod pod="ns/u"`,
		`error Failed to delete unscheduled terminating pod pod="ns/u"`,
	}
	if got := logLines(t, &buf, "numPods", "pod"); !slices.Equal(got, want) {
		t.Fatalf("second pass logged\n%q\nwant\n%q", got, want)
	}
	f.api.Take()
	f.api.Intercept(resttest.On("delete", "pods"), func(resttest.Action) error { return nil })
	resttest.Add(f.api, rest.Pods, pod("u2", time.Minute, terminating, inNamespace("x")))
	f.pass()
	if got := logLines(t, &buf, "pod"); !slices.Contains(got, `info Forced deletion of unscheduled terminating Pod succeeded pod="x/u2"`) {
		t.Fatalf("third pass logged %q, want the unscheduled pod's success line", got)
	}
}

// TestQuietPass: a pass with nothing to collect logs nothing at info.
func TestQuietPass(t *testing.T) {
	f := newFixture(t, Config{TerminatedPodGCThreshold: 5}, []*api.Pod{pod("a", time.Minute, phase(api.PodSucceeded))}, nil)
	var buf bytes.Buffer
	f.c.log = zerolog.New(&buf).Level(zerolog.InfoLevel)
	f.pass()
	if got := logLines(t, &buf); len(got) != 0 {
		t.Fatalf("a pass with nothing to do logged %q", got)
	}
}

// TestPassStopsWhenContextEnds: a pass under an ended context attempts
// nothing — no GET of a quarantined node, no patch, no delete: nothing
// sent, logged (but the pass's summary) or counted (the client would refuse the requests, but
// each refusal would be logged and counted as a failed deletion).
func TestPassStopsWhenContextEnds(t *testing.T) {
	f := newFixture(t, Config{TerminatedPodGCThreshold: 1, QuarantineTime: -1}, []*api.Pod{
		pod("a", 2*time.Minute, phase(api.PodSucceeded)), pod("b", time.Minute, phase(api.PodFailed)),
		pod("o", time.Minute, onNode("gone")), pod("u", time.Minute, terminating),
		pod("v", time.Minute, terminating),
	}, nil)
	f.api.Fail(resttest.On("delete", "pods").Named("ns/v"), resttest.Failure(500, "InternalError", "etcd is slow"))
	f.pass() // deletes a and u, not v; quarantines "gone"
	var buf bytes.Buffer
	f.c.log = zerolog.New(&buf).Level(zerolog.InfoLevel)
	// sum adds up every series of both counters.
	sum := func() float64 {
		mfs, err := f.reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		var n float64
		for _, mf := range mfs {
			for _, m := range mf.GetMetric() {
				n += m.GetCounter().GetValue()
			}
		}
		return n
	}
	counted := sum()
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	if got := f.passCtx(ended); len(got) != 0 {
		t.Fatalf("a pass under an ended context sent %q", got)
	}
	// The pass's own summary line may come; no pod's, no node's.
	lines := slices.DeleteFunc(logLines(t, &buf), func(l string) bool { return l == "info Garbage collecting pods" })
	if len(lines) != 0 || sum() != counted {
		t.Fatalf("a pass under an ended context logged %q and counted %v more deletions", lines, sum()-counted)
	}
}

// TestTerminatingOutOfServiceCountsUncached: the rule's count of
// terminating pods whose node the cache lacks (its debug line).
func TestTerminatingOutOfServiceCountsUncached(t *testing.T) {
	pods := []*api.Pod{pod("a", 0, terminating, onNode("gone")), pod("b", 0, terminating), pod("c", 0, onNode("gone"))}
	if got, missing := terminatingOutOfService(pods, nil); len(got) != 0 || missing != 2 {
		t.Fatalf("terminatingOutOfService = %v, %d; want none, 2", got, missing)
	}
}
