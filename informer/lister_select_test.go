package informer

import (
	"fmt"
	"slices"
	"sort"
	"testing"

	"github.com/kcmlab/kcm/kube/api"
	"github.com/kcmlab/kcm/kube/labels"
	"github.com/kcmlab/kcm/store"
)

// selectorCases are selectors with the Kubernetes rule each one checks
// (k8s.io/apimachinery labels.Requirement.Matches: "=" and "in" need the
// key present with a listed value; "!=" and "notin" also match an absent
// key; "k" needs the key present, "!k" absent; a selector is the AND of
// its requirements; Everything matches all, Nothing none).
var selectorCases = []struct {
	sel  string
	rule string
}{
	{"", "Everything matches every object"},
	{"app=web", "equality: key present with the value"},
	{"app==web", "== is equality"},
	{"app=nope", "equality with a value no object has matches none"},
	{"tier=", "equality with the empty value needs the key present"},
	{"app in (web,db)", "in: key present with a listed value"},
	{"app in (web,db),tier=fe", "requirements are ANDed; the smaller index set is read"},
	{"app=web,tier in (fe,be)", "ANDed with an in over two values"},
	{"app!=web", "inequality also matches objects without the key"},
	{"app notin (web)", "notin also matches objects without the key"},
	{"app", "exists: key present, any value"},
	{"!app", "does not exist: key absent"},
	{"app=web,!canary", "equality ANDed with does-not-exist"},
	{"app=web,track!=stable", "equality ANDed with inequality"},
}

// listerFixture caches pods over three namespaces with varied labels.
func listerFixture() []*api.Pod {
	var pods []*api.Pod
	apps := []string{"web", "db", "cache", ""}
	for i := range 60 {
		p := pod(fmt.Sprintf("ns%d", i%3), fmt.Sprintf("p%02d", i))
		p.Labels = map[string]string{}
		if a := apps[i%len(apps)]; a != "" {
			p.Labels["app"] = a
		}
		switch i % 5 {
		case 0:
			p.Labels["tier"] = "fe"
		case 1:
			p.Labels["tier"] = "be"
		case 2:
			p.Labels["tier"] = ""
		}
		if i%7 == 0 {
			p.Labels["canary"] = "true"
		}
		if i%2 == 0 {
			p.Labels["track"] = "stable"
		}
		pods = append(pods, p)
	}
	return pods
}

// TestListerSelectorsAgreeWithAScan: whatever index a lister reads (label,
// namespace, both or none), List and Namespace(ns).List return exactly the
// objects a scan of every cached object with Selector.Matches returns, and
// Namespace(ns).List returns them ordered by key when the store has a
// namespace index.
func TestListerSelectorsAgreeWithAScan(t *testing.T) {
	pods := listerFixture()
	for _, ix := range []struct {
		name     string
		indexers store.Indexers[*api.Pod]
		ordered  bool // Namespace(ns).List comes ordered by key
	}{
		{"label and namespace indexes", store.BuiltinIndexers[*api.Pod](), true},
		{"label index only", store.BuiltinIndexers[*api.Pod](store.IndexLabel), false},
		{"namespace index only", store.BuiltinIndexers[*api.Pod](store.IndexNamespace), true},
		{"no index", nil, false},
	} {
		s := store.New(store.Options[*api.Pod]{Indexers: ix.indexers})
		for _, p := range pods {
			s.Set(p)
		}
		l := NewLister(s.View(), "pods")
		for _, tc := range selectorCases {
			sel, err := labels.ParseSelector(tc.sel)
			if err != nil {
				t.Fatal(err)
			}
			want := scan(pods, sel, "", false)
			if got := keysSorted(l.List(sel)); !slices.Equal(got, want) {
				t.Errorf("%s: List(%q) = %v, want %v (%s)", ix.name, tc.sel, got, want, tc.rule)
			}
			for _, ns := range []string{"ns0", "ns2", "none"} {
				got := keysOf(l.Namespace(ns).List(sel))
				if want := scan(pods, sel, ns, true); !slices.Equal(sortedCopy(got), want) {
					t.Errorf("%s: Namespace(%s).List(%q) = %v, want %v (%s)", ix.name, ns, tc.sel, got, want, tc.rule)
				}
				if ix.ordered && !sort.StringsAreSorted(got) {
					t.Errorf("%s: Namespace(%s).List(%q) not ordered by key: %v", ix.name, ns, tc.sel, got)
				}
			}
		}
		if got := l.List(labels.Nothing()); len(got) != 0 {
			t.Errorf("%s: List(Nothing) = %v, want none", ix.name, keysOf(got))
		}
		if got := l.Namespace("ns0").List(labels.Nothing()); len(got) != 0 {
			t.Errorf("%s: Namespace.List(Nothing) = %v, want none", ix.name, keysOf(got))
		}
	}
}

// TestListerReadsTheLabelIndex: an exact selector is answered from the
// label index, not by a scan. The proof: a "label" index that leaves out
// one pod hides that pod from app=web (read from the index), while
// app!=db, which no key=value index can answer, still finds it by a scan.
func TestListerReadsTheLabelIndex(t *testing.T) {
	hidden := "ns0/p00" // app=web
	s := store.New(store.Options[*api.Pod]{Indexers: store.Indexers[*api.Pod]{
		store.IndexNamespace: nil,
		store.IndexLabel: func(p *api.Pod) []string {
			if p.Key() == hidden {
				return nil
			}
			return store.LabelIndexFunc(p)
		},
	}})
	for _, p := range listerFixture() {
		s.Set(p)
	}
	l := NewLister(s.View(), "pods")
	web := labels.SelectorFromSet(map[string]string{"app": "web"})
	notDB, err := labels.ParseSelector("app!=db")
	if err != nil {
		t.Fatal(err)
	}
	if got := keysOf(l.List(web)); slices.Contains(got, hidden) || len(got) == 0 {
		t.Errorf("List(app=web) = %v: want the indexed web pods only (not %s)", got, hidden)
	}
	if got := keysOf(l.List(notDB)); !slices.Contains(got, hidden) {
		t.Errorf("List(app!=db) = %v: want a scan, which finds %s", got, hidden)
	}
	// ns0 has 20 pods and app=web 15 in all: the label index is smaller.
	if got := keysOf(l.Namespace("ns0").List(web)); slices.Contains(got, hidden) || len(got) == 0 {
		t.Errorf("Namespace(ns0).List(app=web) = %v: want it read from the label index", got)
	}
}

func scan(pods []*api.Pod, sel labels.Selector, ns string, inNS bool) []string {
	var out []string
	for _, p := range pods {
		if (!inNS || p.Namespace == ns) && sel.Matches(p.Labels) {
			out = append(out, p.Key())
		}
	}
	slices.Sort(out)
	return out
}

func keysOf(pods []*api.Pod) []string {
	out := make([]string, 0, len(pods))
	for _, p := range pods {
		out = append(out, p.Key())
	}
	return out
}

func keysSorted(pods []*api.Pod) []string { return sortedCopy(keysOf(pods)) }

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	if len(out) == 0 {
		return nil
	}
	return out
}
