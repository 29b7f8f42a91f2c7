package labels_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/labels"
)

func TestSelectorMatches(t *testing.T) {
	web := map[string]string{"app": "web", "tier": "frontend", "env": ""}
	tests := []struct {
		selector string
		labels   map[string]string
		want     bool
		rule     string
	}{
		{"", web, true, "an empty selector matches everything"},
		{"", nil, true, "an empty selector matches even no labels"},
		{"app=web", web, true, "equality matches an equal value"},
		{"app==web", web, true, "== is the same as ="},
		{"app=db", web, false, "equality fails on a different value"},
		{"missing=web", web, false, "equality fails when the key is absent"},
		{"env=", web, true, "k= matches the empty value"},
		{"env=", map[string]string{}, false, "k= does not match an absent key"},
		{"app!=db", web, true, "inequality matches a different value"},
		{"app!=web", web, false, "inequality fails on the same value"},
		{"missing!=web", web, true, "inequality matches when the key is absent"},
		{"tier in (frontend,backend)", web, true, "In matches a listed value"},
		{"tier in (backend)", web, false, "In fails on an unlisted value"},
		{"missing in (x)", web, false, "In fails when the key is absent"},
		{"tier notin (backend)", web, true, "NotIn matches an unlisted value"},
		{"tier notin (frontend,backend)", web, false, "NotIn fails on a listed value"},
		{"missing notin (x)", web, true, "NotIn matches when the key is absent"},
		{"app", web, true, "Exists matches a present key"},
		{"env", web, true, "Exists matches a present key with an empty value"},
		{"missing", web, false, "Exists fails on an absent key"},
		{"!missing", web, true, "DoesNotExist matches an absent key"},
		{"!env", web, false, "DoesNotExist fails on a present key, even with an empty value"},
		{"app=web,tier in (frontend),!canary", web, true, "requirements are ANDed: all hold"},
		{"app=web,tier in (backend)", web, false, "requirements are ANDed: one fails"},
		{"app,!app", web, false, "contradictory requirements match nothing"},
		{"app,!app", nil, false, "contradictory requirements match nothing"},
		{"x in (a,b,c,d,e,f,g,h,i,j,k)", map[string]string{"x": "k"}, true, "In over many values (binary search)"},
		{"x in (a,b,c,d,e,f,g,h,i,j,k)", map[string]string{"x": "z"}, false, "In over many values (binary search)"},
		{"x notin (a,b,c,d,e,f,g,h,i,j,k)", map[string]string{"x": "a"}, false, "NotIn over many values"},
	}
	for _, tt := range tests {
		sel, err := labels.ParseSelector(tt.selector)
		if err != nil {
			t.Fatalf("ParseSelector(%q): %v", tt.selector, err)
		}
		if got := sel.Matches(tt.labels); got != tt.want {
			t.Errorf("%q.Matches(%v) = %v, want %v (%s)", tt.selector, tt.labels, got, tt.want, tt.rule)
		}
		if got := sel.MatchesLookup(mapLookup(tt.labels)); got != tt.want {
			t.Errorf("%q.MatchesLookup(%v) = %v, want %v (%s)", tt.selector, tt.labels, got, tt.want, tt.rule)
		}
		for _, r := range sel.Requirements() {
			// A selector holds iff each of its requirements holds.
			if !r.Matches(tt.labels) && tt.want {
				t.Errorf("%q: requirement %q fails on %v but the selector matched", tt.selector, r, tt.labels)
			}
		}
	}
}

// mapLookup adapts a map to labels.LabelLookup.
type mapLookup map[string]string

func (m mapLookup) LookupLabel(k string) (string, bool) { v, ok := m[k]; return v, ok }

func TestLabelSelectorAsSelector(t *testing.T) {
	// metav1.LabelSelectorAsSelector: nil selects nothing, empty selects
	// everything.
	nothing, err := labels.LabelSelectorAsSelector(nil)
	if err != nil || nothing.Matches(map[string]string{}) || nothing.Matches(map[string]string{"a": "b"}) || nothing.Empty() || !nothing.IsNothing() {
		t.Errorf("nil selector: %v, %v", nothing, err)
	}
	everything, err := labels.LabelSelectorAsSelector(&api.LabelSelector{})
	if err != nil || !everything.Matches(nil) || !everything.Empty() || everything.String() != "" {
		t.Errorf("empty selector: %v, %v", everything, err)
	}

	ls := &api.LabelSelector{
		MatchLabels: map[string]string{"app": "web", "app.kubernetes.io/part-of": "shop"},
		MatchExpressions: []api.LabelSelectorRequirement{
			{Key: "tier", Operator: api.LabelSelectorOpIn, Values: []string{"frontend", "backend", "frontend"}},
			{Key: "track", Operator: api.LabelSelectorOpNotIn, Values: []string{"canary"}},
			{Key: "team", Operator: api.LabelSelectorOpExists},
			{Key: "legacy", Operator: api.LabelSelectorOpDoesNotExist},
		},
	}
	sel, err := labels.LabelSelectorAsSelector(ls)
	if err != nil {
		t.Fatal(err)
	}
	// matchLabels become "k=v"; values are sorted and deduplicated;
	// requirements are sorted by key.
	const want = "app=web,app.kubernetes.io/part-of=shop,!legacy,team,tier in (backend,frontend),track notin (canary)"
	if sel.String() != want {
		t.Errorf("String() = %q\nwant       %q", sel.String(), want)
	}
	set := map[string]string{"app": "web", "app.kubernetes.io/part-of": "shop", "tier": "backend", "team": "a"}
	if !sel.Matches(set) {
		t.Errorf("%v should match %v", sel, set)
	}
	set["legacy"] = "yes"
	if sel.Matches(set) {
		t.Errorf("%v should not match %v", sel, set)
	}
	if v, ok := sel.RequiresExactMatch("app"); !ok || v != "web" {
		t.Errorf("RequiresExactMatch(app) = %q, %v", v, ok)
	}
	if _, ok := sel.RequiresExactMatch("tier"); ok {
		t.Error("RequiresExactMatch(tier): two values are not an exact match")
	}
}

func TestLabelSelectorAsSelectorErrors(t *testing.T) {
	// The API's validation rules (ValidateLabelSelectorRequirement): In and
	// NotIn need values, Exists and DoesNotExist take none, the operator
	// must be one of the four, keys and values follow the label syntax.
	tests := []struct {
		ls      api.LabelSelector
		mention string
	}{
		{api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "a", Operator: api.LabelSelectorOpIn}}}, `matchExpressions[0]: key "a": operator In needs at least one value`},
		{api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "a", Operator: api.LabelSelectorOpExists}, {Key: "b", Operator: api.LabelSelectorOpNotIn, Values: []string{}}}}, `matchExpressions[1]: key "b": operator NotIn needs at least one value`},
		{api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "a", Operator: api.LabelSelectorOpExists, Values: []string{"x"}}}}, `key "a": operator Exists takes no values`},
		{api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "a", Operator: api.LabelSelectorOpDoesNotExist, Values: []string{"x"}}}}, `key "a": operator DoesNotExist takes no values`},
		{api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "a", Operator: "Gt", Values: []string{"1"}}}}, `key "a": operator "Gt" is not one of In, NotIn, Exists, DoesNotExist`},
		{api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "a", Operator: "in", Values: []string{"1"}}}}, `operator "in" is not one of`},
		{api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "-a", Operator: api.LabelSelectorOpExists}}}, `key "-a": the name part must`},
		{api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "a", Operator: api.LabelSelectorOpIn, Values: []string{"ok", "not ok"}}}}, `key "a": value "not ok" must`},
		{api.LabelSelector{MatchLabels: map[string]string{"Example.com/a": "b"}}, `matchLabels: invalid label: key "Example.com/a": the prefix must be a DNS subdomain`},
		{api.LabelSelector{MatchLabels: map[string]string{"a": strings.Repeat("v", 64)}}, `key "a": value must be at most 63 characters`},
	}
	for _, tt := range tests {
		_, err := labels.LabelSelectorAsSelector(&tt.ls)
		if !errors.Is(err, labels.ErrInvalidSelector) {
			t.Errorf("%+v: err = %v, want ErrInvalidSelector", tt.ls, err)
			continue
		}
		if !strings.Contains(err.Error(), tt.mention) {
			t.Errorf("%+v: err = %q, want it to mention %q", tt.ls, err, tt.mention)
		}
	}
}

func TestSelectorConstructors(t *testing.T) {
	if s := labels.Everything(); !s.Empty() || s.IsNothing() || !s.Matches(nil) || s.String() != "" {
		t.Errorf("Everything: %q", s)
	}
	var zero labels.Selector
	if !zero.Empty() || !zero.Matches(map[string]string{"a": "b"}) {
		t.Error("the zero Selector should match everything")
	}
	n := labels.Nothing()
	if n.Empty() || !n.IsNothing() || n.Matches(nil) || n.Matches(map[string]string{"kcm.nothing": ""}) {
		t.Errorf("Nothing: %q", n)
	}
	// Nothing's string form must select nothing on the server too, and
	// must not be mistaken for Everything ("").
	back, err := labels.ParseSelector(n.String())
	if err != nil || back.Empty() || back.Matches(nil) || back.Matches(map[string]string{"kcm.nothing": "x"}) {
		t.Errorf("Nothing.String() = %q parses to %q, %v", n.String(), back, err)
	}

	set := labels.SelectorFromSet(map[string]string{"b": "2", "a": "1"})
	if set.String() != "a=1,b=2" || !set.Matches(map[string]string{"a": "1", "b": "2", "c": "3"}) || set.Matches(map[string]string{"a": "1"}) {
		t.Errorf("SelectorFromSet: %q", set)
	}
	if !labels.SelectorFromSet(nil).Empty() {
		t.Error("SelectorFromSet(nil) should be empty")
	}
	if _, err := labels.ValidatedSelectorFromSet(map[string]string{"a b": "1"}); !errors.Is(err, labels.ErrInvalidSelector) || !errors.Is(err, labels.ErrInvalidLabel) {
		t.Errorf("ValidatedSelectorFromSet(bad key): %v", err)
	}
	if s, err := labels.ValidatedSelectorFromSet(map[string]string{"a": "1"}); err != nil || s.String() != "a=1" {
		t.Errorf("ValidatedSelectorFromSet: %q, %v", s, err)
	}

	// Building order does not change the canonical form.
	r1, _ := labels.NewRequirement("x", labels.SelectorOpNotIn, []string{"b", "a"})
	r2, _ := labels.NewRequirement("x", labels.SelectorOpExists, nil)
	r3, _ := labels.NewRequirement("a", labels.SelectorOpEquals, []string{"1"})
	s1, s2 := labels.NewSelector(r1, r2, r3), labels.NewSelector(r3, r2, r1)
	if s1.String() != "a=1,x notin (a,b),x" || s2.String() != s1.String() {
		t.Errorf("canonical order: %q vs %q", s1, s2)
	}
	if got := labels.SelectorFromSet(map[string]string{"app": "web"}).Add(r2).String(); got != "app=web,x" {
		t.Errorf("Add: %q", got)
	}
	if !labels.Nothing().Add(r3).IsNothing() {
		t.Error("Nothing().Add should stay Nothing")
	}
	if vals := r1.Values(); vals[0] != "a" || r1.Key() != "x" || r1.Operator() != labels.SelectorOpNotIn || r1.String() != "x notin (a,b)" {
		t.Errorf("requirement accessors: %v %q %v %q", vals, r1.Key(), r1.Operator(), r1)
	}
}

func TestNewRequirementArity(t *testing.T) {
	tests := []struct {
		op     labels.SelectorOperator
		values []string
		ok     bool
	}{
		{labels.SelectorOpIn, nil, false},
		{labels.SelectorOpIn, []string{"a"}, true},
		{labels.SelectorOpNotIn, []string{"a", "b"}, true},
		{labels.SelectorOpEquals, nil, false},
		{labels.SelectorOpEquals, []string{"a", "b"}, false},
		{labels.SelectorOpNotEquals, []string{""}, true},
		{labels.SelectorOpExists, nil, true},
		{labels.SelectorOpExists, []string{"a"}, false},
		{labels.SelectorOpDoesNotExist, []string{}, true},
		{labels.SelectorOperator(0), []string{"a"}, false},
		{labels.SelectorOperator(99), nil, false},
	}
	for _, tt := range tests {
		_, err := labels.NewRequirement("k", tt.op, tt.values)
		if (err == nil) != tt.ok {
			t.Errorf("NewRequirement(k, %v, %q): err = %v, want ok=%v", tt.op, tt.values, err, tt.ok)
		}
		if err != nil && !errors.Is(err, labels.ErrInvalidSelector) {
			t.Errorf("NewRequirement: %v does not wrap ErrInvalidSelector", err)
		}
	}
}

func TestSelectorMatchesDoesNotAllocate(t *testing.T) {
	sel := labels.MustParseSelector("app=web,tier in (a,b,c,d,e,f,g,h,i,j),track notin (canary),!legacy,team")
	set := map[string]string{"app": "web", "tier": "h", "team": "x", "pod-template-hash": "abc"}
	var matched bool
	allocs := testing.AllocsPerRun(100, func() { matched = sel.Matches(set) })
	if allocs != 0 || !matched {
		t.Errorf("Matches: %v allocations per call, matched %v", allocs, matched)
	}
}

func BenchmarkSelectorMatches(b *testing.B) {
	sel := labels.MustParseSelector("app=web,pod-template-hash=7c5b4f8d9")
	set := map[string]string{"app": "web", "pod-template-hash": "7c5b4f8d9", "tier": "frontend"}
	b.ReportAllocs()
	for b.Loop() {
		if !sel.Matches(set) {
			b.Fatal("no match")
		}
	}
}

func ExampleParseSelector() {
	sel, err := labels.ParseSelector("tier in (frontend, backend), app == web, !canary")
	if err != nil {
		panic(err)
	}
	fmt.Println(sel) // canonical: sorted by key, values sorted, "==" as "="
	fmt.Println(sel.Matches(map[string]string{"app": "web", "tier": "backend"}))
	fmt.Println(sel.Matches(map[string]string{"app": "web", "tier": "backend", "canary": "true"}))
	// Output:
	// app=web,!canary,tier in (backend,frontend)
	// true
	// false
}

func ExampleParseSelector_error() {
	_, err := labels.ParseSelector("app=web, tier in (a b)")
	fmt.Println(err)
	fmt.Println(errors.Is(err, labels.ErrInvalidSelector))
	// Output:
	// invalid label selector "app=web, tier in (a b)": at offset 20: expected ',' or ')' between values, found "b"
	// true
}

func ExampleLabelSelectorAsSelector() {
	// A ReplicaSet's spec.selector, compiled once and matched against pods.
	sel, err := labels.LabelSelectorAsSelector(&api.LabelSelector{
		MatchLabels: map[string]string{"app": "web"},
		MatchExpressions: []api.LabelSelectorRequirement{
			{Key: "track", Operator: api.LabelSelectorOpNotIn, Values: []string{"canary"}},
		},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(sel.String()) // as sent in ?labelSelector=
	fmt.Println(sel.Matches(map[string]string{"app": "web"}))
	fmt.Println(sel.Matches(map[string]string{"app": "web", "track": "canary"}))

	none, _ := labels.LabelSelectorAsSelector(nil)
	fmt.Println(none.Matches(map[string]string{"app": "web"}))
	// Output:
	// app=web,track notin (canary)
	// true
	// false
	// false
}

func ExampleSelectorFromSet() {
	sel := labels.SelectorFromSet(map[string]string{"pod-template-hash": "7c5b4f8d9", "app": "web"})
	fmt.Println(sel)
	v, ok := sel.RequiresExactMatch("app")
	fmt.Println(v, ok)
	// Output:
	// app=web,pod-template-hash=7c5b4f8d9
	// web true
}
