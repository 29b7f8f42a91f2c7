package difftest

import (
	"fmt"
	"strings"
	"testing"
)

func ExampleDiffSnapshots() {
	a := Snapshot{
		"ServiceAccount ns/default": "kind: ServiceAccount\nmetadata:\n    name: default\n",
		"ServiceAccount ns/builder": "kind: ServiceAccount\n",
	}
	b := Snapshot{
		"ServiceAccount ns/default": "kind: ServiceAccount\nmetadata:\n    labels:\n        x: y\n    name: default\n",
	}
	fmt.Print(Report("kcm", "kube-controller-manager", DiffSnapshots(a, b, nil)))
	// Output:
	// 2 difference(s) between A = kcm and B = kube-controller-manager:
	//
	// === ServiceAccount ns/builder
	// only in A:
	// - kind: ServiceAccount
	//
	// === ServiceAccount ns/default
	//   kind: ServiceAccount
	//   metadata:
	// +     labels:
	// +         x: y
	//       name: default
}

func TestDiffSnapshotsAllowances(t *testing.T) {
	a := Snapshot{"Pod ns/p": "a: 1\nb: 2\n", "Pod ns/q": "x\n"}
	b := Snapshot{"Pod ns/p": "a: 1\nb: 3\n"}
	for _, tc := range []struct {
		name  string
		allow []Allowance
		want  []string // keys reported
	}{
		{"no allowance reports both", nil, []string{"Pod ns/p", "Pod ns/q"}},
		{"a line allowance absorbs the changed line", []Allowance{{Key: "Pod ns/p", Line: "b:"}}, []string{"Pod ns/q"}},
		{"a line allowance for another line absorbs nothing", []Allowance{{Key: "Pod ns/p", Line: "a:"}}, []string{"Pod ns/p", "Pod ns/q"}},
		{"a whole-object allowance absorbs a missing object", []Allowance{{Key: "Pod ns/q"}}, []string{"Pod ns/p"}},
		{"a prefix allowance covers every key it starts", []Allowance{{Key: "Pod ns/*"}}, nil},
		{"a line allowance does not absorb a missing object", []Allowance{{Key: "Pod ns/q", Line: "x"}}, []string{"Pod ns/p", "Pod ns/q"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, d := range DiffSnapshots(a, b, tc.allow) {
				got = append(got, d.Key)
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("reported %v, want %v", got, tc.want)
			}
		})
	}
	if DiffSnapshots(b, b, nil) != nil {
		t.Error("equal snapshots differ")
	}
	if d := DiffSnapshots(Snapshot{}, a, nil); len(d) != 2 || !strings.HasPrefix(d[0].Detail, "only in B:\n+ a: 1") {
		t.Errorf("objects only in B: %v", d)
	}
	if Report("a", "b", nil) != "" {
		t.Error("an empty report is not empty")
	}
}

// The line diff keeps two lines of context and marks skipped stretches.
func TestLineDiffContext(t *testing.T) {
	a := "1\n2\n3\n4\n5\n6\n7\n8\n9\n"
	b := "1\nX\n3\n4\n5\n6\n7\n8\nY\n"
	got, differs := lineDiff(a, b, "k", nil)
	want := "  1\n- 2\n+ X\n  3\n  4\n  ...\n  7\n  8\n- 9\n+ Y\n"
	if !differs || got != want {
		t.Errorf("lineDiff =\n%s\nwant\n%s", got, want)
	}
	if ops := lcsDiff([]string{"a", "b"}, []string{"b", "c"}); len(ops) != 3 || ops[0] != (diffOp{'-', "a"}) || ops[2] != (diffOp{'+', "c"}) {
		t.Errorf("lcsDiff = %v", ops)
	}
}

// The diff is the longest-common-subsequence one, deletions before
// insertions where both are minimal.
func TestLCSDiff(t *testing.T) {
	render := func(ops []diffOp) string {
		var s []string
		for _, op := range ops {
			s = append(s, string(op.kind)+op.line)
		}
		return strings.Join(s, " ")
	}
	for _, tc := range []struct{ a, b, want string }{
		{"a b", "b c", "-a  b +c"},
		{"x y", "y x y", "+y  x  y"},
		{"x y", "y y", "-x  y +y"},
		{"x y", "x", " x -y"},
		{"x", "x y", " x +y"},
		{"", "", " "},
	} {
		got := render(lcsDiff(strings.Split(tc.a, " "), strings.Split(tc.b, " ")))
		if got != tc.want {
			t.Errorf("lcsDiff(%q, %q) = %q, want %q", tc.a, tc.b, got, tc.want)
		}
	}
}

// Context is cut at both ends: no "..." before the first line shown, and
// unchanged lines past the last change's context are left out.
func TestLineDiffEnds(t *testing.T) {
	got, _ := lineDiff("1\n2\n3\n4\n5\n6\n7\n8\n", "1\n2\n3\n4\n5\n6\nX\n8\n", "k", nil)
	if want := "  5\n  6\n- 7\n+ X\n  8\n"; got != want {
		t.Errorf("a change near the end:\n%s\nwant\n%s", got, want)
	}
	got, _ = lineDiff("1\n2\n3\n4\n5\n6\n", "X\n2\n3\n4\n5\n6\n", "k", nil)
	if want := "- 1\n+ X\n  2\n  3\n"; got != want {
		t.Errorf("a change at the start:\n%s\nwant\n%s", got, want)
	}
}
