package store

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// Queries: Get's siblings that walk an index (ByIndex, AppendByIndex,
// IndexKeys, ByIndexPage, ByIndexRange, ListIndexValues).

// fixture is a small cluster used by the query tests.
func fixture() *Store[*tobj] {
	return newTestStore(
		mk("default", "web-2", labels("app", "web", "tier", "fe"), owners("rs1"), node("n1")),
		mk("default", "web-1", labels("app", "web", "tier", "fe"), owners("rs1"), node("n2")),
		mk("default", "db-0", labels("app", "db"), owners("ss1"), node("n1")),
		mk("kube-system", "dns", labels("app", "dns", "tier", "infra"), owners("rs9", "rs9", "x")),
		mk("", "node-a", labels("role", "worker")),
	)
}

func TestByIndex(t *testing.T) {
	s := fixture()
	for _, tc := range []struct {
		index, value string
		want         []string
		err          error
	}{
		{IndexNamespace, "default", []string{"default/db-0", "default/web-1", "default/web-2"}, nil},
		{IndexNamespace, "", []string{"node-a"}, nil},
		{IndexNamespace, "nope", nil, nil},
		{IndexLabel, "app=web", []string{"default/web-1", "default/web-2"}, nil},
		{IndexLabel, "tier=fe", []string{"default/web-1", "default/web-2"}, nil},
		{IndexLabel, "app", nil, nil},
		{IndexLabel, "app=", nil, nil},
		{IndexOwner, "rs1", []string{"default/web-1", "default/web-2"}, nil},
		{IndexOwner, "rs9", []string{"kube-system/dns"}, nil}, // duplicate owner counts once
		{"node", "n1", []string{"default/db-0", "default/web-2"}, nil},
		{"node", "", nil, nil},
		{"missing", "x", nil, ErrNoIndex},
	} {
		got, err := s.ByIndex(tc.index, tc.value)
		if !errors.Is(err, tc.err) {
			t.Errorf("ByIndex(%s, %s) err = %v, want %v", tc.index, tc.value, err, tc.err)
			continue
		}
		if err != nil && !strings.Contains(err.Error(), tc.index) {
			t.Errorf("error %q does not name the index", err)
		}
		if !slices.Equal(keysOf(got), tc.want) {
			t.Errorf("ByIndex(%s, %s) = %v, want %v", tc.index, tc.value, keysOf(got), tc.want)
		}
		appended, err := s.AppendByIndex([]*tobj{nil}, tc.index, tc.value)
		if !errors.Is(err, tc.err) || appended[0] != nil || !slices.Equal(keysOf(appended[1:]), tc.want) {
			t.Errorf("AppendByIndex(%s, %s) = %v, %v; want nil + %v", tc.index, tc.value, appended, err, tc.want)
		}
		keys, err := s.IndexKeys(tc.index, tc.value)
		if !errors.Is(err, tc.err) || !slices.Equal(keys, tc.want) {
			t.Errorf("IndexKeys(%s, %s) = %v, %v; want %v", tc.index, tc.value, keys, err, tc.want)
		}
	}
}

func TestByIndexPage(t *testing.T) {
	s := newTestStore()
	for _, n := range []string{"e", "a", "c", "d", "b"} {
		s.Set(mk("ns", n))
	}
	s.Set(mk("other", "z"))
	for _, tc := range []struct {
		name, after string
		limit       int
		want        []string
		next        string
	}{
		{"all", "", 0, []string{"ns/a", "ns/b", "ns/c", "ns/d", "ns/e"}, ""},
		{"first page", "", 2, []string{"ns/a", "ns/b"}, "ns/b"},
		{"second page", "ns/b", 2, []string{"ns/c", "ns/d"}, "ns/d"},
		{"last page exact", "ns/c", 2, []string{"ns/d", "ns/e"}, ""},
		{"last page short", "ns/d", 2, []string{"ns/e"}, ""},
		{"after the end", "ns/e", 2, nil, ""},
		{"after a missing key", "ns/bb", 1, []string{"ns/c"}, "ns/c"},
		{"negative limit", "ns/c", -1, []string{"ns/d", "ns/e"}, ""},
	} {
		got, next, err := s.ByIndexPage(IndexNamespace, "ns", tc.after, tc.limit)
		if err != nil || !slices.Equal(keysOf(got), tc.want) || next != tc.next || (tc.want == nil) != (got == nil) {
			t.Errorf("%s: got %#v next %q err %v; want %v next %q", tc.name, keysOf(got), next, err, tc.want, tc.next)
		}
	}
	if _, _, err := s.ByIndexPage("nope", "ns", "", 1); !errors.Is(err, ErrNoIndex) {
		t.Errorf("unknown index: err = %v", err)
	}
}

func TestByIndexRange(t *testing.T) {
	s := fixture()
	for _, tc := range []struct {
		name, from, to string
		after          Cursor
		limit          int
		want           []string
		next           Cursor
	}{
		// Every app=* label: values "app=db" < "app=dns" < "app=web".
		{"all app values", "app=", "app>", Cursor{}, 0,
			[]string{"default/db-0", "kube-system/dns", "default/web-1", "default/web-2"}, Cursor{}},
		{"first page", "app=", "app>", Cursor{}, 2,
			[]string{"default/db-0", "kube-system/dns"}, Cursor{"app=dns", "kube-system/dns"}},
		{"second page", "app=", "app>", Cursor{"app=dns", "kube-system/dns"}, 2,
			[]string{"default/web-1", "default/web-2"}, Cursor{}},
		{"to is exclusive", "app=db", "app=web", Cursor{}, 0,
			[]string{"default/db-0", "kube-system/dns"}, Cursor{}},
		{"unbounded above", "tier=", "", Cursor{}, 0,
			[]string{"default/web-1", "default/web-2", "kube-system/dns"}, Cursor{}},
		{"cursor before from is ignored", "tier=infra", "", Cursor{"a", "b"}, 0,
			[]string{"kube-system/dns"}, Cursor{}},
		{"empty range", "zzz", "", Cursor{}, 0, nil, Cursor{}},
		{"whole index", "", "", Cursor{}, 0,
			[]string{"default/db-0", "kube-system/dns", "default/web-1", "default/web-2", "node-a",
				"default/web-1", "default/web-2", "kube-system/dns"}, Cursor{}},
	} {
		got, next, err := s.ByIndexRange(IndexLabel, tc.from, tc.to, tc.after, tc.limit)
		if err != nil || !slices.Equal(keysOf(got), tc.want) || next != tc.next || (tc.want == nil) != (got == nil) {
			t.Errorf("%s: got %v next %+v err %v; want %v next %+v", tc.name, keysOf(got), next, err, tc.want, tc.next)
		}
	}
	if _, _, err := s.ByIndexRange("nope", "", "", Cursor{}, 0); !errors.Is(err, ErrNoIndex) {
		t.Errorf("unknown index: err = %v", err)
	}
}

func TestListIndexValues(t *testing.T) {
	s := fixture()
	for _, tc := range []struct {
		index string
		want  []string
	}{
		{IndexNamespace, []string{"", "default", "kube-system"}},
		{IndexLabel, []string{"app=db", "app=dns", "app=web", "role=worker", "tier=fe", "tier=infra"}},
		{IndexOwner, []string{"rs1", "rs9", "ss1", "x"}},
		{"node", []string{"n1", "n2"}},
		{"missing", nil},
	} {
		if got := s.ListIndexValues(tc.index); !slices.Equal(got, tc.want) {
			t.Errorf("ListIndexValues(%s) = %q, want %q", tc.index, got, tc.want)
		}
	}
}

// TestScratchRecycling: a query collects into a pooled buffer and returns
// an exact copy; the buffer goes back to the pool emptied (keeping no
// object alive) when its capacity is at most maxScratch, and is dropped
// when larger, so that one huge query does not pin a huge buffer.
func TestScratchRecycling(t *testing.T) {
	s := New(Options[*tobj]{})
	obj := mk("ns", "x")
	for _, tc := range []struct {
		cap  int
		kept bool
	}{{1, true}, {maxScratch, true}, {maxScratch + 1, false}} {
		recycled := false
		// sync.Pool may drop a Put (1 in 4 under -race, or when the
		// goroutine changes P): a kept buffer must come back at least once
		// in 20 tries, a dropped one never.
		for range 20 {
			buf := make([]*tobj, 1, tc.cap)
			buf[0] = obj
			slot := &buf[0]
			if out := s.keep(&buf); len(out) != 1 || out[0] != obj || &out[0] == slot {
				t.Fatalf("cap %d: keep returned %v, want a copy of the one object", tc.cap, out)
			}
			if b, _ := s.bufs.Get().(*[]*tobj); b == &buf {
				recycled = true
				if len(buf) != 0 || buf[:1][0] != nil {
					t.Errorf("cap %d: recycled buffer not emptied: len %d, first %v", tc.cap, len(buf), buf[:1][0])
				}
				break
			}
		}
		if recycled != tc.kept {
			t.Errorf("buffer of cap %d recycled: %v, want %v", tc.cap, recycled, tc.kept)
		}
	}
}
