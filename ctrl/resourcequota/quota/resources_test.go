package quota_test

import (
	"slices"
	"testing"

	"github.com/kcmlab/kcm/ctrl/resourcequota/quota"
	"github.com/kcmlab/kcm/kube/api/resource"
)

func list(t *testing.T, s string) resource.List {
	t.Helper()
	l, err := resource.ParseList(rl(s))
	if err != nil {
		t.Fatal(err)
	}
	if l == nil {
		l = resource.List{}
	}
	return l
}

// TestListHelpers: Add, Subtract, Mask, Equals, ResourceNames and IsZero
// as Kubernetes' quota/v1 resources.go defines them — a key on one side
// only is copied as it is (its string too), Subtract negates a key only b
// has, Equals compares values, not formats.
func TestListHelpers(t *testing.T) {
	for _, c := range []struct {
		name, a, b string
		add, sub   string
	}{
		{"disjoint", "cpu=1", "memory=1Gi", "cpu=1,memory=1Gi", "cpu=1,memory=-1Gi"},
		{"common", "cpu=100m,memory=1Gi", "cpu=900m,memory=512Mi", "cpu=1,memory=1536Mi", "cpu=-800m,memory=512Mi"},
		{"copied string", "cpu=+1", "", "cpu=+1", "cpu=+1"},
		{"summed string", "cpu=+1", "cpu=0", "cpu=1", "cpu=1"},
		{"empty", "", "", "", ""},
	} {
		a, b := list(t, c.a), list(t, c.b)
		equalLists(t, c.name+" add", quota.Add(a, b), rl(c.add))
		equalLists(t, c.name+" subtract", quota.Subtract(a, b), rl(c.sub))
	}
	l := list(t, "cpu=1,memory=1Gi,pods=3")
	equalLists(t, "mask", quota.Mask(l, []string{"cpu", "pods", "services"}), rl("cpu=1,pods=3"))
	if got := quota.ResourceNames(l); !slices.Equal(got, []string{"cpu", "memory", "pods"}) {
		t.Errorf("ResourceNames = %v", got)
	}
	for _, c := range []struct {
		a, b string
		eq   bool
	}{
		{"cpu=1", "cpu=1000m", true},
		{"memory=1Gi", "memory=1073741824", true},
		{"cpu=1", "cpu=2", false},
		{"cpu=1", "cpu=1,pods=0", false},
		{"cpu=1", "memory=1", false},
		{"", "", true},
	} {
		if got := quota.Equals(list(t, c.a), list(t, c.b)); got != c.eq {
			t.Errorf("Equals(%s, %s) = %v", c.a, c.b, got)
		}
	}
	for _, c := range []struct {
		l    string
		zero bool
	}{{"", true}, {"cpu=0,pods=0m", true}, {"cpu=0,pods=1", false}, {"cpu=-1", false}} {
		if got := quota.IsZero(list(t, c.l)); got != c.zero {
			t.Errorf("IsZero(%s) = %v", c.l, got)
		}
	}
}
