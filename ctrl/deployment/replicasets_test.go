package deployment

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
)

// TestRevisions: MaxRevision and LastRevision skip unreadable values;
// LastRevision is the second highest.
func TestRevisions(t *testing.T) {
	d := newDeployment("d", 1, "x")
	mk := func(rev string) *api.ReplicaSet {
		rs := newRS(d, "d-"+rev, 0, 0, 0)
		rs.Annotations[RevisionAnnotation] = rev
		if rev == "" {
			delete(rs.Annotations, RevisionAnnotation)
		}
		return rs
	}
	rss := []*api.ReplicaSet{mk("3"), mk("x"), mk("7"), mk("5"), mk("")}
	if got := maxRevision(rss); got != 7 {
		t.Errorf("maxRevision %d", got)
	}
	if got := lastRevision(rss); got != 5 {
		t.Errorf("lastRevision %d", got)
	}
	if got := lastRevision([]*api.ReplicaSet{mk("4"), mk("9"), mk("2")}); got != 4 {
		t.Errorf("lastRevision %d", got)
	}
	if got := lastRevision([]*api.ReplicaSet{mk("4"), mk("4")}); got != 4 {
		t.Errorf("lastRevision of equals %d", got)
	}
}

// TestOrders: the sorts of controller_utils.go and deployment_util.go.
func TestOrders(t *testing.T) {
	d := newDeployment("d", 1, "x")
	mk := func(name string, size int32, age time.Duration, rev string) *api.ReplicaSet {
		rs := newRS(d, name, 0, size, age)
		rs.Annotations[RevisionAnnotation] = rev
		return rs
	}
	a := mk("a", 2, -3*time.Hour, "1")
	b := mk("b", 5, -2*time.Hour, "3")
	c := mk("c", 2, -time.Hour, "2")
	c2 := mk("c2", 2, -time.Hour, "x")
	names := func(rss []*api.ReplicaSet) string {
		var s []string
		for _, rs := range rss {
			s = append(s, rs.Name)
		}
		return strings.Join(s, ",")
	}
	for _, tc := range []struct {
		name string
		cmp  func(a, b *api.ReplicaSet) int
		want string
	}{
		{"byCreation", byCreation, "a,b,c,c2"},
		{"bySizeOlder", bySizeOlder, "b,a,c,c2"},
		{"bySizeNewer", bySizeNewer, "b,c2,c,a"},
		{"byRevision", byRevision, "a,c,b,c2"},
	} {
		rss := []*api.ReplicaSet{c2, c, b, a}
		slices.SortStableFunc(rss, tc.cmp)
		if got := names(rss); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
	if r := findActiveOrLatest(nil, nil); r != nil {
		t.Error("findActiveOrLatest of nothing")
	}
	z1, z2 := mk("z1", 0, -2*time.Hour, "1"), mk("z2", 0, -time.Hour, "2")
	if r := findActiveOrLatest(nil, []*api.ReplicaSet{z1, z2}); r != z2 {
		t.Errorf("latest of inactive: %v", r.Name)
	}
	if r := findActiveOrLatest(z1, []*api.ReplicaSet{z2}); r != z1 {
		t.Errorf("new of inactive: %v", r.Name)
	}
	if r := findActiveOrLatest(z1, []*api.ReplicaSet{z2, a}); r != a {
		t.Errorf("the one active: %v", r.Name)
	}
	if r := findActiveOrLatest(b, []*api.ReplicaSet{a}); r != nil {
		t.Errorf("two active: %v", r.Name)
	}
}
