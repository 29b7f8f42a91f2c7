package processor

import (
	"slices"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

// callLog is a Handler that records calls synchronously.
type callLog struct{ calls []event }

func (c *callLog) OnAdd(obj *api.Pod, initial bool) {
	c.calls = append(c.calls, event{Kind: "add", Key: obj.Key(), RV: obj.ResourceVersion, Flag: initial})
}

func (c *callLog) OnUpdate(oldObj, newObj *api.Pod) {
	c.calls = append(c.calls, event{Kind: "update", Key: newObj.Key(), RV: newObj.ResourceVersion, OldRV: oldObj.ResourceVersion})
}

func (c *callLog) OnDelete(obj *api.Pod, unknown bool) {
	c.calls = append(c.calls, event{Kind: "delete", Key: obj.Key(), RV: obj.ResourceVersion, Flag: unknown})
}

// TestFilteringHandler checks the translation table of FilteringHandler:
// the inner handler must see the events of a cache that holds only the
// accepted objects. The filter here accepts pods on node "n1" (the shape of a
// spec.nodeName field selector).
func TestFilteringHandler(t *testing.T) {
	onNode := func(node string, rv int) *api.Pod {
		p := pod("ns", "a", rv)
		p.Spec.NodeName = node
		return p
	}
	in, out := onNode("n1", 1), onNode("n2", 1)
	in2, out2 := onNode("n1", 2), onNode("n2", 2)
	tests := []struct {
		name string
		n    Notification[*api.Pod]
		want []event
	}{
		{"add accepted", AddNotification(in, true), []event{{Kind: "add", Key: "ns/a", RV: "1", Flag: true}}},
		{"add rejected", AddNotification(out, false), nil},
		{"update inside", UpdateNotification(in, in2), []event{{Kind: "update", Key: "ns/a", RV: "2", OldRV: "1"}}},
		{"update outside", UpdateNotification(out, out2), nil},
		{"update moves in: add", UpdateNotification(out, in2), []event{{Kind: "add", Key: "ns/a", RV: "2"}}},
		{"update moves out: delete of the old state", UpdateNotification(in, out2), []event{{Kind: "delete", Key: "ns/a", RV: "1"}}},
		{"sync inside", SyncNotification(in, in), []event{{Kind: "update", Key: "ns/a", RV: "1", OldRV: "1"}}},
		{"delete accepted keeps the flag", DeleteNotification(in, true), []event{{Kind: "delete", Key: "ns/a", RV: "1", Flag: true}}},
		{"delete rejected", DeleteNotification(out, true), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			inner := &callLog{}
			tc.n.Deliver(FilteringHandler[*api.Pod]{
				Filter:  func(p *api.Pod) bool { return p.Spec.NodeName == "n1" },
				Handler: inner,
			})
			if !slices.Equal(inner.calls, tc.want) {
				t.Fatalf("inner saw %v, want %v", inner.calls, tc.want)
			}
		})
	}
}

// TestHandlerFuncsNilFuncs: unset functions ignore their notifications.
func TestHandlerFuncsNilFuncs(t *testing.T) {
	var adds int
	h := HandlerFuncs[*api.Pod]{AddFunc: func(*api.Pod, bool) { adds++ }}
	o := pod("ns", "a", 1)
	for _, n := range []Notification[*api.Pod]{AddNotification(o, false), UpdateNotification(o, o),
		SyncNotification(o, o), DeleteNotification(o, false)} {
		n.Deliver(h)
	}
	if adds != 1 {
		t.Fatalf("AddFunc called %d times", adds)
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{Add: "add", Update: "update", Delete: "delete", Sync: "sync", 0: "invalid", 9: "invalid"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", k, got, want)
		}
	}
}
