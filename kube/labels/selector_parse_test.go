package labels_test

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kcmlab/kcm/kube/labels"
)

func TestParseSelector(t *testing.T) {
	// Each input and its canonical form (client-go labels.Parse semantics;
	// "==" is written "=", values sorted and deduplicated, requirements
	// sorted by key).
	tests := []struct{ in, canonical string }{
		{"", ""},
		{"   \t\n", ""},
		{"a=b", "a=b"},
		{"a==b", "a=b"},
		{"a!=b", "a!=b"},
		{"a", "a"},
		{"!a", "!a"},
		{" ! a ", "!a"},
		{"a=", "a="},     // the empty value
		{"a!=", "a!="},   // the empty value
		{"a=,b", "a=,b"}, // the empty value before a comma
		{"a in (x)", "a in (x)"},
		{"a in(x,y)", "a in (x,y)"},
		{"a in ( y , x , y )", "a in (x,y)"},
		{"a notin (x)", "a notin (x)"},
		{"a in ()", "a in ()"},     // "()" is the set {""}, as upstream
		{"a in (x,)", "a in (,x)"}, // a trailing comma adds ""
		{"a in (,x)", "a in (,x)"}, // so does a leading one
		{"a in (x,,y)", "a in (,x,y)"},
		{"b=2,a=1", "a=1,b=2"},
		{"z, !y, x in (1), w notin (2), v=3, u!=4", "u!=4,v=3,w notin (2),x in (1),!y,z"},
		{"in=notin", "in=notin"}, // keywords are ordinary keys and values
		{"a in (in,notin)", "a in (in,notin)"},
		{"app.kubernetes.io/name=web", "app.kubernetes.io/name=web"},
		{"a=B-1_2.c", "a=B-1_2.c"},
		{"a,a", "a,a"}, // duplicates are kept, as upstream
	}
	for _, tt := range tests {
		sel, err := labels.ParseSelector(tt.in)
		if err != nil {
			t.Errorf("ParseSelector(%q): %v", tt.in, err)
			continue
		}
		if sel.String() != tt.canonical {
			t.Errorf("ParseSelector(%q).String() = %q, want %q", tt.in, sel.String(), tt.canonical)
		}
		// The canonical form is a fixed point of parse ∘ String.
		again, err := labels.ParseSelector(sel.String())
		if err != nil || again.String() != sel.String() {
			t.Errorf("re-parse of %q: %q, %v", sel.String(), again.String(), err)
		}
	}
}

func TestParseSelectorErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{",", `at offset 0: expected a label key, found ","`},
		{"a,", `at offset 2: expected a label key, found end of selector`},
		{"a,,b", `at offset 2: expected a label key, found ","`},
		{"=b", `at offset 0: expected a label key, found "="`},
		{"!", `at offset 1: expected a label key after '!', found end of selector`},
		{"!a=b", `at offset 2: expected ',' or end of selector, found "="`},
		{"a b", `at offset 2: expected an operator (=, ==, !=, in, notin), ',' or end of selector after key "a", found "b"`},
		{"a!b", `at offset 1: expected an operator`},
		{"a>1", `at offset 1: expected an operator`}, // gt/lt are field-selector only
		{"a=b=c", `at offset 3: expected ',' or end of selector, found "="`},
		{"a=(b)", `at offset 2: expected a value after "=", found "("`},
		{"a in x", `at offset 5: expected '(', found "x"`},
		{"a in (x", `at offset 7: expected a value, ',' or ')', found end of selector`},
		{"a in (x y)", `at offset 8: expected ',' or ')' between values, found "y"`},
		{"a in (x))", `at offset 8: expected ',' or end of selector, found ")"`},
		{"a in (x=y)", `at offset 7: expected a value, ',' or ')', found "="`},
		{"a notin", `at offset 7: expected '(', found end of selector`},
		{"-a=b", `at offset 0: invalid label: key "-a": the name part must`},
		{"ok, a/b/c", `at offset 4: invalid label: key "a/b/c": at most one '/' is allowed`},
		{"a=b c", `at offset 4: expected ',' or end of selector, found "c"`},
		{"a=-b", `at offset 0: invalid label: key "a": value "-b" must`},
		{"a in (x,-y)", `at offset 0: invalid label: key "a": value "-y" must`},
		{"x=" + strings.Repeat("v", 64), `key "x": value must be at most 63 characters`},
	}
	for _, tt := range tests {
		_, err := labels.ParseSelector(tt.in)
		if !errors.Is(err, labels.ErrInvalidSelector) {
			t.Errorf("ParseSelector(%q): err = %v, want ErrInvalidSelector", tt.in, err)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseSelector(%q):\n got  %q\n want it to contain %q", tt.in, err, tt.want)
		}
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("MustParseSelector should panic on a bad selector")
			}
		}()
		labels.MustParseSelector("a in")
	}()
}

func TestValidateLabelKey(t *testing.T) {
	// Label keys are qualified names: [prefix/]name, the name 1-63 chars of
	// [A-Za-z0-9-_.] starting and ending alphanumeric, the prefix a DNS-1123
	// subdomain of at most 253 chars (apimachinery IsQualifiedName).
	long63 := strings.Repeat("a", 63)
	label63 := strings.Repeat("b", 63)
	prefix253 := strings.Join([]string{label63, label63, label63, strings.Repeat("c", 61)}, ".")
	tests := []struct {
		key  string
		want string // "" for valid, else part of the error
	}{
		{"app", ""},
		{"A", ""},
		{"9", ""},
		{"app.kubernetes.io/name", ""},
		{"pod-template-hash", ""},
		{"a_b.c-d", ""},
		{"example.com/A_b", ""},
		{"x-1.example.com/y", ""},
		{long63, ""},
		{prefix253 + "/n", ""},
		{"", "the name part must not be empty"},
		{long63 + "a", "at most 63 characters"},
		{"-app", "start and end with an alphanumeric"},
		{"app-", "start and end with an alphanumeric"},
		{"_app", "start and end with an alphanumeric"},
		{"a b", "must consist of"},
		{"a:b", "must consist of"},
		{"é", "must consist of"},
		{"/app", "the prefix before '/' must not be empty"},
		{"example.com/", "the name part must not be empty"},
		{"a/b/c", "at most one '/'"},
		{"Example.com/app", "DNS subdomain"},
		{"example..com/app", "DNS subdomain"},
		{".example.com/app", "DNS subdomain"},
		{"example-.com/app", "DNS subdomain"},
		{"exa_mple.com/app", "DNS subdomain"},
		{prefix253 + "c/n", "the prefix must be at most 253 characters"},
	}
	for _, tt := range tests {
		err := labels.ValidateLabelKey(tt.key)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("ValidateLabelKey(%q) = %v, want valid", tt.key, err)
		case tt.want != "" && (!errors.Is(err, labels.ErrInvalidLabel) || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("ValidateLabelKey(%q) = %v, want ErrInvalidLabel mentioning %q", tt.key, err, tt.want)
		case err != nil && !strings.Contains(err.Error(), `"`+tt.key+`"`):
			t.Errorf("ValidateLabelKey(%q) = %v: the error should name the key", tt.key, err)
		}
	}
}

func TestValidateLabelValue(t *testing.T) {
	// Label values: empty, or at most 63 chars of [A-Za-z0-9-_.] starting
	// and ending alphanumeric (apimachinery IsValidLabelValue).
	tests := []struct {
		value string
		ok    bool
	}{
		{"", true},
		{"v", true},
		{"V1.2-rc_3", true},
		{strings.Repeat("v", 63), true},
		{strings.Repeat("v", 64), false},
		{"-v", false},
		{"v.", false},
		{"a b", false},
		{"a/b", false},
		{"a=b", false},
	}
	for _, tt := range tests {
		err := labels.ValidateLabelValue("tier", tt.value)
		if (err == nil) != tt.ok {
			t.Errorf("ValidateLabelValue(%q) = %v, want ok=%v", tt.value, err, tt.ok)
		}
		if err != nil && (!errors.Is(err, labels.ErrInvalidLabel) || !strings.Contains(err.Error(), `key "tier"`)) {
			t.Errorf("ValidateLabelValue(%q) = %v: want ErrInvalidLabel naming the key", tt.value, err)
		}
	}
	err := labels.ValidateLabels(map[string]string{"ok": "1", "b": "-", "a": "-"})
	if err == nil || !strings.Contains(err.Error(), `key "a"`) {
		t.Errorf("ValidateLabels should report the first bad key in order: %v", err)
	}
}

// TestSelectorStringRoundTrip builds random selectors, and checks that
// ParseSelector(s.String()) is equivalent to s: same canonical string and
// the same verdict on random label sets.
func TestSelectorStringRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	keys := []string{"a", "b", "app.kubernetes.io/name", "x-y"}
	values := []string{"", "1", "2", "web", "v.1"}
	ops := []labels.SelectorOperator{labels.SelectorOpIn, labels.SelectorOpNotIn, labels.SelectorOpEquals,
		labels.SelectorOpNotEquals, labels.SelectorOpExists, labels.SelectorOpDoesNotExist}
	for range 500 {
		var reqs []labels.Requirement
		for range rng.IntN(4) {
			op := ops[rng.IntN(len(ops))]
			var vs []string
			switch op {
			case labels.SelectorOpIn, labels.SelectorOpNotIn:
				for range 1 + rng.IntN(3) {
					vs = append(vs, values[rng.IntN(len(values))])
				}
			case labels.SelectorOpEquals, labels.SelectorOpNotEquals:
				vs = []string{values[rng.IntN(len(values))]}
			}
			r, err := labels.NewRequirement(keys[rng.IntN(len(keys))], op, vs)
			if err != nil {
				t.Fatal(err)
			}
			reqs = append(reqs, r)
		}
		sel := labels.NewSelector(reqs...)
		back, err := labels.ParseSelector(sel.String())
		if err != nil {
			t.Fatalf("ParseSelector(%q): %v", sel.String(), err)
		}
		if back.String() != sel.String() {
			t.Fatalf("round trip: %q became %q", sel.String(), back.String())
		}
		for range 20 {
			set := map[string]string{}
			for _, k := range keys {
				if rng.IntN(2) == 0 {
					set[k] = values[rng.IntN(len(values))]
				}
			}
			if sel.Matches(set) != back.Matches(set) {
				t.Fatalf("%q and its re-parse disagree on %v", sel.String(), set)
			}
		}
	}
}

// FuzzParseSelector: whatever parses has a canonical form that parses to
// itself. (go test runs the seeds; go test -fuzz explores further.)
func FuzzParseSelector(f *testing.F) {
	for _, s := range []string{"", "a=b", "a in (x,,y)", "!a,b!=c", "a notin ()", "a==", "in in (in)", "x,(", "a=b,c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sel, err := labels.ParseSelector(s)
		if err != nil {
			if !errors.Is(err, labels.ErrInvalidSelector) {
				t.Fatalf("error %v does not wrap ErrInvalidSelector", err)
			}
			return
		}
		back, err := labels.ParseSelector(sel.String())
		if err != nil || back.String() != sel.String() {
			t.Fatalf("%q: canonical %q re-parses to %q, %v", s, sel.String(), back.String(), err)
		}
	})
}
