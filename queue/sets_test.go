package queue

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kcmlab/kcm/internal/ring"
)

// op is one step of a table test on sets: add (normal or low), get, or done.
type op struct {
	kind string // "add", "addLow", "get", "done"
	key  string
	// want is the key get must return ("" = none ready); for add, "true"
	// or "false" is whether the add counted.
	want string
}

func TestSetsTable(t *testing.T) {
	tests := []struct {
		name      string
		ops       []op
		wantReady int
	}{
		{
			name: "adds before a Get are processed once (dedup)",
			ops: []op{
				{kind: "add", key: "a", want: "true"}, {kind: "add", key: "a", want: "false"},
				{kind: "add", key: "a", want: "false"}, {kind: "get", want: "a"}, {kind: "get", want: ""},
			},
		},
		{
			name: "FIFO order",
			ops: []op{
				{kind: "add", key: "c"}, {kind: "add", key: "a"}, {kind: "add", key: "b"}, {kind: "add", key: "a"},
				{kind: "get", want: "c"}, {kind: "get", want: "a"}, {kind: "get", want: "b"},
			},
		},
		{
			name: "re-add while processing waits for Done",
			ops: []op{
				{kind: "add", key: "a"}, {kind: "get", want: "a"},
				{kind: "add", key: "a", want: "true"}, {kind: "get", want: ""},
				{kind: "done", key: "a"}, {kind: "get", want: "a"}, {kind: "done", key: "a"}, {kind: "get", want: ""},
			},
		},
		{
			name: "requeued key goes to the back",
			ops: []op{
				{kind: "add", key: "a"}, {kind: "get", want: "a"}, {kind: "add", key: "a"},
				{kind: "add", key: "b"}, {kind: "done", key: "a"}, {kind: "get", want: "b"}, {kind: "get", want: "a"},
			},
		},
		{
			name: "Done of a key not held is ignored",
			ops: []op{
				{kind: "done", key: "x"}, {kind: "add", key: "x"}, {kind: "done", key: "x"},
				{kind: "get", want: "x"},
			},
		},
		{
			name: "low lane served only when normal lane is empty",
			ops: []op{
				{kind: "addLow", key: "l1"}, {kind: "addLow", key: "l2"}, {kind: "add", key: "n1"},
				{kind: "get", want: "n1"}, {kind: "add", key: "n2"}, {kind: "get", want: "n2"},
				{kind: "get", want: "l1"}, {kind: "get", want: "l2"},
			},
		},
		{
			name: "normal add promotes a key waiting in the low lane",
			ops: []op{
				{kind: "addLow", key: "l1"}, {kind: "addLow", key: "l2"}, {kind: "add", key: "n1"},
				{kind: "add", key: "l2", want: "false"},
				{kind: "get", want: "n1"}, {kind: "get", want: "l2"}, {kind: "get", want: "l1"}, {kind: "get", want: ""},
			},
			wantReady: 0,
		},
		{
			name: "stale low copy is skipped even after the key returns to the low lane",
			ops: []op{
				{kind: "addLow", key: "a"}, {kind: "addLow", key: "b"}, {kind: "add", key: "a"},
				{kind: "get", want: "a"}, {kind: "done", key: "a"}, {kind: "addLow", key: "a"},
				{kind: "get", want: "b"}, {kind: "get", want: "a"}, {kind: "get", want: ""},
			},
		},
		{
			name: "low add never demotes; promotion while held takes effect at Done",
			ops: []op{
				{kind: "add", key: "a"}, {kind: "addLow", key: "a", want: "false"},
				{kind: "get", want: "a"}, {kind: "addLow", key: "a"}, {kind: "add", key: "a", want: "false"},
				{kind: "addLow", key: "z"}, {kind: "done", key: "a"}, {kind: "get", want: "a"},
			},
			wantReady: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSets[string]()
			for i, o := range tc.ops {
				switch o.kind {
				case "add", "addLow":
					got := s.add(o.key, o.kind == "addLow")
					if o.want != "" && (o.want == "true") != got {
						t.Fatalf("op %d %s(%s) counted = %v, want %s", i, o.kind, o.key, got, o.want)
					}
				case "get":
					got, ok := s.get()
					if !ok {
						got = ""
					}
					if got != o.want {
						t.Fatalf("op %d get = %q, want %q", i, got, o.want)
					}
				case "done":
					s.done(o.key)
				}
			}
			if s.ready != tc.wantReady {
				t.Fatalf("ready = %d, want %d", s.ready, tc.wantReady)
			}
		})
	}
}

// model is a deliberately naive queue: slices searched linearly.
type model struct {
	normal, low []int
	dirty, held map[int]bool
	lowKey      map[int]bool // dirty key's lane is low
}

func (m *model) add(k int, lowPri bool) bool {
	if m.dirty[k] {
		if !lowPri && m.lowKey[k] {
			m.lowKey[k] = false
			if i := slices.Index(m.low, k); i >= 0 {
				m.low = slices.Delete(m.low, i, i+1)
				m.normal = append(m.normal, k)
			}
		}
		return false
	}
	m.dirty[k], m.lowKey[k] = true, lowPri
	if !m.held[k] {
		m.push(k)
	}
	return true
}

func (m *model) push(k int) {
	if m.lowKey[k] {
		m.low = append(m.low, k)
	} else {
		m.normal = append(m.normal, k)
	}
}

func (m *model) get() (int, bool) {
	lane := &m.normal
	if len(m.normal) == 0 {
		lane = &m.low
	}
	if len(*lane) == 0 {
		return 0, false
	}
	k := (*lane)[0]
	*lane = (*lane)[1:]
	m.dirty[k], m.held[k] = false, true
	return k, true
}

func (m *model) done(k int) {
	if !m.held[k] {
		return
	}
	m.held[k] = false
	if m.dirty[k] {
		m.push(k)
	}
}

// TestSetsAgainstModel drives sets and the naive model with the same random
// operations and requires identical answers after every step.
func TestSetsAgainstModel(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		s := newSets[int]()
		if seed%2 == 0 {
			s.eagerCells = 0 // finished keys stay idle: revive and dropIdle run
		}
		m := &model{dirty: map[int]bool{}, held: map[int]bool{}, lowKey: map[int]bool{}}
		for step := range 3000 {
			k := rng.IntN(12)
			switch r := rng.IntN(10); {
			case r < 3:
				if got, want := s.add(k, false), m.add(k, false); got != want {
					t.Fatalf("seed %d step %d add(%d) = %v, model %v", seed, step, k, got, want)
				}
			case r < 5:
				if got, want := s.add(k, true), m.add(k, true); got != want {
					t.Fatalf("seed %d step %d addLow(%d) = %v, model %v", seed, step, k, got, want)
				}
			case r < 8:
				gk, gok := s.get()
				mk, mok := m.get()
				if gk != mk || gok != mok {
					t.Fatalf("seed %d step %d get = (%d,%v), model (%d,%v)", seed, step, gk, gok, mk, mok)
				}
			default:
				s.done(k)
				m.done(k)
			}
			if want := len(m.normal) + len(m.low); s.ready != want {
				t.Fatalf("seed %d step %d ready = %d, model %d", seed, step, s.ready, want)
			}
		}
	}
}

// A flood of keys in either lane must not leave its slots behind once the
// workers have drained it.
func TestSetsGiveMemoryBackAfterFlood(t *testing.T) {
	const n = 20_000
	s := newSets[int]()
	for i := range n {
		s.add(i, i%2 == 1)
	}
	peakNormal, peakLow := s.normal.Cap(), s.lowLane.Cap()
	if peakNormal < n/2 || peakLow < n/2 {
		t.Fatalf("lanes hold %d and %d slots for %d keys each", peakNormal, peakLow, n/2)
	}
	for range n {
		k, ok := s.get()
		if !ok {
			t.Fatal("get found no key before the flood drained")
		}
		s.done(k)
	}
	if c, l := s.normal.Cap(), s.lowLane.Cap(); c > ring.KeepCap || l > ring.KeepCap {
		t.Fatalf("lanes keep %d and %d slots after draining (peaks %d, %d), want ≤ %d",
			c, l, peakNormal, peakLow, ring.KeepCap)
	}
}

// TestSetsManyHeld holds more keys than done scans (heldScan), so done
// finds them through the index, and finishes them in random order: each
// key re-added while held comes back exactly once, the others become idle
// and come back on their next add.
func TestSetsManyHeld(t *testing.T) {
	for _, c := range []struct{ n, eager int }{{heldScan / 2, eagerCells}, {heldScan * 4, eagerCells}, {heldScan * 4, 0}} {
		n := c.n
		rng := rand.New(rand.NewPCG(uint64(n), 5))
		s := newSets[int]()
		s.eagerCells = c.eager
		for k := range n {
			s.add(k, false)
		}
		for k := range n {
			if got, ok := s.get(); !ok || got != k {
				t.Fatalf("n=%d: get = %d, %v; want %d", n, got, ok, k)
			}
		}
		readded := map[int]bool{}
		for k := range n {
			if k%3 == 0 {
				s.add(k, false)
				readded[k] = true
			}
		}
		if wp, _ := s.done(n + 1); wp {
			t.Fatalf("n=%d: done of a key never handed out was accepted", n)
		}
		for _, k := range rng.Perm(n) {
			wp, rq := s.done(k)
			if !wp || rq != readded[k] {
				t.Fatalf("n=%d: done(%d) = %v, %v; want true, %v", n, k, wp, rq, readded[k])
			}
			if wp, _ := s.done(k); wp {
				t.Fatalf("n=%d: a second done(%d) was accepted", n, k)
			}
		}
		if s.inFlight != 0 || len(s.held) != 0 || s.ready != len(readded) {
			t.Fatalf("n=%d: inFlight %d held %d ready %d, want 0 0 %d", n, s.inFlight, len(s.held), s.ready, len(readded))
		}
		for len(readded) > 0 {
			k, _ := s.get()
			if !readded[k] {
				t.Fatalf("n=%d: got %d, which was not re-added", n, k)
			}
			delete(readded, k)
			s.done(k)
		}
		if !s.add(1, false) { // idle since its done: it counts and comes back
			t.Fatalf("n=%d: add of an idle key did not count", n)
		}
		if k, ok := s.get(); !ok || k != 1 {
			t.Fatalf("n=%d: get = %d, %v; want 1", n, k, ok)
		}
	}
}
