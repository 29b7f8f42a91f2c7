package history_test

import (
	"slices"
	"testing"
	"time"

	"github.com/kcmlab/kcm/ctrl/history"
	"github.com/kcmlab/kcm/kube/api"
)

// TestNewControllerRevision: the revision of a parent (NewControllerRevision)
// carries the template's labels plus the hash label, one controller
// reference to the parent with controller and blockOwnerDeletion set
// (metav1.NewControllerRef), the data and revision number, and is named
// <parent>-<hash of data and collision count>. The template's labels are
// copied, not shared.
func TestNewControllerRevision(t *testing.T) {
	parent := &api.StatefulSet{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "ns", UID: "u1"}}
	labels := map[string]string{"app": "web"}
	data := []byte("a")
	for _, tt := range []struct {
		count *int32
		hash  string // Hash's table: FNV-1 of "a", of "a1"
	}{{nil, "d8bfb88b"}, {ptr(int32(1)), "5ddbd9db47"}} {
		r := history.NewControllerRevision(parent, history.StatefulSetKind, labels, data, 3, tt.count)
		ref := r.OwnerReferences
		if r.Name != "web-"+tt.hash || r.Namespace != "ns" || r.Labels[history.HashLabel] != tt.hash || r.Labels["app"] != "web" ||
			len(r.Labels) != 2 || string(r.Data.Raw) != "a" || r.Revision != 3 || len(ref) != 1 ||
			ref[0] != (api.OwnerReference{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "web", UID: "u1",
				Controller: ref[0].Controller, BlockOwnerDeletion: ref[0].BlockOwnerDeletion}) ||
			!ref[0].IsController() || ref[0].BlockOwnerDeletion == nil || !*ref[0].BlockOwnerDeletion {
			t.Errorf("count %v: %+v", tt.count, r)
		}
	}
	if len(labels) != 1 {
		t.Errorf("the template's labels were modified: %v", labels)
	}
}

func rev(name string, n int64, created int, data string) *api.ControllerRevision {
	return &api.ControllerRevision{ObjectMeta: api.ObjectMeta{Name: name,
		CreationTimestamp: api.NewTime(time.Date(2026, 1, 1, 0, 0, created, 0, time.UTC))},
		Revision: n, Data: api.RawExtension{Raw: []byte(data)}}
}

func names(rs []*api.ControllerRevision) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Name)
	}
	return out
}

// TestEqualRevision: revisions are equal when their data bytes are
// (history.EqualRevision: bytes.Equal on Data.Raw); two nils are equal, a
// nil and a revision are not; the same JSON spelt differently is another
// revision.
func TestEqualRevision(t *testing.T) {
	a, a2, b := rev("a", 1, 0, `{"x":1}`), rev("a2", 7, 9, `{"x":1}`), rev("b", 1, 0, `{"x": 1}`)
	tests := []struct {
		name string
		l, r *api.ControllerRevision
		want bool
	}{
		{"same data, other name and number", a, a2, true},
		{"same JSON, other bytes", a, b, false},
		{"nil and nil", nil, nil, true},
		{"nil and one", nil, a, false},
		{"one and nil", a, nil, false},
	}
	for _, tt := range tests {
		if got := history.EqualRevision(tt.l, tt.r); got != tt.want {
			t.Errorf("%s: EqualRevision = %v, want %v", tt.name, got, tt.want)
		}
	}
	all := []*api.ControllerRevision{a, b, a2}
	if got := names(history.FindEqualRevisions(all, rev("needle", 0, 0, `{"x":1}`))); !slices.Equal(got, []string{"a", "a2"}) {
		t.Errorf("FindEqualRevisions = %v, want [a a2] in their order", got)
	}
	if got := history.FindEqualRevisions(all, rev("needle", 0, 0, `{}`)); got != nil {
		t.Errorf("FindEqualRevisions of absent data = %v, want nil", got)
	}
}

// TestSortControllerRevisions: by revision number; equal numbers by
// creation time, older first, then by name (history's byRevision); the
// sort is stable. NextRevision is one more than the last, 1 for none
// (the statefulset controller's nextRevision).
func TestSortControllerRevisions(t *testing.T) {
	tests := []struct {
		name string
		in   []*api.ControllerRevision
		want []string
		next int64
	}{
		{"none", nil, nil, 1},
		{"by number", []*api.ControllerRevision{rev("c", 3, 0, ""), rev("a", 1, 5, ""), rev("b", 2, 1, "")}, []string{"a", "b", "c"}, 4},
		{"a tie by creation time", []*api.ControllerRevision{rev("x", 2, 9, ""), rev("y", 2, 3, ""), rev("z", 1, 0, "")}, []string{"z", "y", "x"}, 3},
		{"a tie by time, then by name", []*api.ControllerRevision{rev("q", 5, 1, ""), rev("p", 5, 1, "")}, []string{"p", "q"}, 6},
	}
	for _, tt := range tests {
		in := slices.Clone(tt.in)
		history.SortControllerRevisions(in)
		if got := names(in); !slices.Equal(got, tt.want) {
			t.Errorf("%s: sorted %v, want %v", tt.name, got, tt.want)
		}
		if got := history.NextRevision(in); got != tt.next {
			t.Errorf("%s: NextRevision = %d, want %d", tt.name, got, tt.next)
		}
	}
}
