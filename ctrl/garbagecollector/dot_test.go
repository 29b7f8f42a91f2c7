package garbagecollector

import (
	"strings"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
)

// chainsGraph is Kubernetes' dump test fixture: alpha owned by bravo and
// charlie, delta owned by foxtrot owned by golf, and echo alone.
func chainsGraph() *Graph {
	g := NewGraph()
	for _, c := range []Change{
		add("", "", meta("", "", "bravo")), add("", "", meta("", "", "charlie")),
		add("", "", meta("", "", "alpha", api0("bravo"), api0("charlie"))),
		add("", "", meta("", "", "golf")), add("", "", meta("", "", "foxtrot", api0("golf"))),
		add("", "", meta("", "", "delta", api0("foxtrot"))), add("", "", meta("", "", "echo")),
	} {
		g.Apply(c)
	}
	return g
}

func api0(uid string) api.OwnerReference { return api.OwnerReference{UID: uid} }

// vertexText is one vertex as kube-controller-manager writes it for an
// object without coordinates (testdata/simple.dot of its dump test).
func vertexText(uid string) string {
	return `  "` + uid + `" [
    label="uid=` + uid + `\nnamespace=\n./\n"
    group=""
    version=""
    kind=""
    namespace=""
    name=""
    uid="` + uid + `"
    missing="false"
    beingDeleted="false"
    deletingDependents="false"
    virtual="false"
  ];
`
}

// TestWriteDOT: the whole graph and the ?uid= views render as
// kube-controller-manager's /debug/controllers/garbagecollector/graph does
// (its dump test's cases "two-chains", "two-chains-from-owner",
// "two-chains-from-child", "drop-no-ref"): lone nodes are left out, edges
// run from dependent to owner, and a uid selects the nodes connected to
// it through owners and dependents.
func TestWriteDOT(t *testing.T) {
	g := chainsGraph()
	all := "strict digraph full {\n  // Node definitions.\n" + vertexText("alpha") + vertexText("bravo") + vertexText("charlie") +
		vertexText("delta") + vertexText("foxtrot") + vertexText("golf") +
		"  // Edge definitions.\n" +
		`  "alpha" -> "bravo";` + "\n" + `  "alpha" -> "charlie";` + "\n" +
		`  "delta" -> "foxtrot";` + "\n" + `  "foxtrot" -> "golf";` + "\n}\n"
	chain := "strict digraph full {\n  // Node definitions.\n" + vertexText("delta") + vertexText("foxtrot") + vertexText("golf") +
		"  // Edge definitions.\n" + `  "delta" -> "foxtrot";` + "\n" + `  "foxtrot" -> "golf";` + "\n}\n"
	for _, tc := range []struct {
		name string
		uids []string
		want string
	}{
		{"two-chains", nil, all},
		{"two-chains-from-owner", []string{"golf"}, chain},
		{"two-chains-from-child", []string{"delta"}, chain},
		{"drop-no-ref", []string{"echo"}, "strict digraph full {\n}\n"},
		{"unknown uid", []string{"zulu"}, "strict digraph full {\n}\n"},
	} {
		var b strings.Builder
		if err := g.WriteDOT(&b, tc.uids...); err != nil {
			t.Fatal(err)
		}
		if b.String() != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, b.String(), tc.want)
		}
	}
}

// TestWriteDOTEscapingAndState: quotes, backslashes and non-ASCII text
// are escaped as kube-controller-manager's testdata/escaping.dot has
// them, and a virtual owner and a node being deleted say so.
func TestWriteDOTEscapingAndState(t *testing.T) {
	g := NewGraph()
	weird := `ref1-[]"\Iñtërnâtiônàlizætiøn,🐹`
	g.Apply(add("ref1group/version", "ref1kind-x", deleting(meta("ref1ns", "ref1name", weird,
		api.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "d", UID: "d1"}), FinalizerDeleteDependents)))
	var b strings.Builder
	if err := g.WriteDOT(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`  "ref1-[]\"\\Iñtërnâtiônàlizætiøn,🐹" [`,
		`    label="uid=ref1-[]\"\\Iñtërnâtiônàlizætiøn,🐹\nnamespace=ref1ns\nref1kind-x.version.ref1group/ref1name\nbeingDeleted,deletingDependents\n"`,
		`    beingDeleted="true"`, `    deletingDependents="true"`,
		`    label="uid=d1\nnamespace=ref1ns\nDeployment.v1.apps/d\nvirtual\n"`,
		`  "ref1-[]\"\\Iñtërnâtiônàlizætiøn,🐹" -> "d1";`,
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("DOT lacks %s:\n%s", want, b.String())
		}
	}
}
