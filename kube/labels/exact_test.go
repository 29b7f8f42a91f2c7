package labels_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/kcmlab/kcm/kube/labels"
)

// TestExactRequirements: only "k=v" (Equals, "==" included) and
// "k in (...)" requirements are exact; "!=", notin, exists and !exists
// constrain a label without naming the values it must have (Kubernetes'
// Requirement.Matches: NotIn and NotEquals also match an absent key), so
// an index of key=value pairs cannot answer them.
func TestExactRequirements(t *testing.T) {
	for _, tc := range []struct {
		sel  string
		want []string // "key:v1,v2"
	}{
		{"", nil},
		{"app=web", []string{"app:web"}},
		{"app==web", []string{"app:web"}},
		{"tier in (fe,be,fe)", []string{"tier:be,fe"}},
		{"app!=web", nil},
		{"tier notin (fe)", nil},
		{"app", nil},
		{"!app", nil},
		{"app=web,tier in (fe),!canary,env!=prod", []string{"app:web", "tier:fe"}},
	} {
		sel, err := labels.ParseSelector(tc.sel)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for k, vs := range sel.ExactRequirements() {
			got = append(got, fmt.Sprintf("%s:%s", k, joinComma(vs)))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q: ExactRequirements = %v, want %v", tc.sel, got, tc.want)
		}
	}
	for range labels.Nothing().ExactRequirements() {
		t.Error("Nothing yielded a requirement")
	}
}

// TestExactRequirementsHoldForEveryMatch: whenever a selector matches a
// label set, the set's value of each exact requirement's key is one of the
// requirement's values (what lets a lister collect candidates from a
// label index without losing matches).
func TestExactRequirementsHoldForEveryMatch(t *testing.T) {
	sets := []map[string]string{nil, {"app": "web"}, {"app": "db", "tier": "fe"}, {"app": "web", "tier": "be"},
		{"tier": "fe"}, {"app": ""}}
	for _, s := range []string{"app=web", "app in (web,db)", "app=web,tier in (fe,be)", "app=", "tier=fe,app!=web"} {
		sel, err := labels.ParseSelector(s)
		if err != nil {
			t.Fatal(err)
		}
		matched := 0
		for _, set := range sets {
			if !sel.Matches(set) {
				continue
			}
			matched++
			for k, vs := range sel.ExactRequirements() {
				if v, ok := set[k]; !ok || !slices.Contains(vs, v) {
					t.Errorf("%q matches %v, whose %s is not one of %v", s, set, k, vs)
				}
			}
		}
		if matched == 0 {
			t.Errorf("%q matched no set: the check checks nothing", s)
		}
	}
}

func joinComma(vs []string) string {
	out := ""
	for i, v := range vs {
		if i > 0 {
			out += ","
		}
		out += v
	}
	return out
}
