package processor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kcmlab/kcm/clock"
	"github.com/kcmlab/kcm/kube/api"
)

// TestNotificationsReachHandlerInOrder: each kind of notification reaches
// the matching handler method with its flags, in distribution order (the
// order the informer applied the changes to its store).
func TestNotificationsReachHandlerInOrder(t *testing.T) {
	a1, a2, b1 := pod("ns", "a", 1), pod("ns", "a", 2), pod("", "b", 1)
	tests := []struct {
		name string
		in   []Notification[*api.Pod]
		want []event
	}{
		{"add from the initial list", []Notification[*api.Pod]{AddNotification(a1, true)},
			[]event{{Kind: "add", Key: "ns/a", RV: "1", Flag: true}}},
		{"live add, update, delete", []Notification[*api.Pod]{
			AddNotification(a1, false), UpdateNotification(a1, a2), DeleteNotification(a2, false)},
			[]event{{Kind: "add", Key: "ns/a", RV: "1"}, {Kind: "update", Key: "ns/a", RV: "2", OldRV: "1"},
				{Kind: "delete", Key: "ns/a", RV: "2"}}},
		{"delete inferred from a relist carries the last known state", []Notification[*api.Pod]{
			DeleteNotification(b1, true)},
			[]event{{Kind: "delete", Key: "b", RV: "1", Flag: true}}},
		{"an invalid kind is skipped", []Notification[*api.Pod]{{Obj: a1}, AddNotification(b1, false)},
			[]event{{Kind: "add", Key: "b", RV: "1"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := mustNew(t, Options[*api.Pod]{})
			rec := newRecorder()
			mustAdd(t, p, rec, HandlerOptions{})
			running(t, p)
			for _, n := range tc.in {
				p.Distribute(n)
			}
			if got := rec.take(t, len(tc.want)); !slices.Equal(got, tc.want) {
				t.Fatalf("got %v\nwant %v", got, tc.want)
			}
		})
	}
}

// TestSlowHandlerDoesNotDelayOthers blocks one handler inside its first call
// and checks that Distribute keeps returning, that the other handler gets
// everything, and that the blocked one then catches up in order.
func TestSlowHandlerDoesNotDelayOthers(t *testing.T) {
	const n = 3000 // more than the initial buffer capacity: the buffer grows
	p := mustNew(t, Options[*api.Pod]{})
	entered := make(chan struct{}, 1)
	release := make(chan struct{})
	var slowSeen []string
	slowDone := make(chan struct{})
	slow := HandlerFuncs[*api.Pod]{AddFunc: func(obj *api.Pod, _ bool) {
		if len(slowSeen) == 0 {
			entered <- struct{}{}
			<-release
		}
		slowSeen = append(slowSeen, obj.Name)
		if len(slowSeen) == n {
			close(slowDone)
		}
	}}
	slowReg := mustAdd(t, p, slow, HandlerOptions{Name: "slow"})
	fast := newRecorder()
	mustAdd(t, p, fast, HandlerOptions{Name: "fast"})
	running(t, p)

	p.Distribute(AddNotification(pod("ns", "p0", 1), false))
	waitClosedOrRecv(t, entered)
	for i := 1; i < n; i++ { // returns although "slow" is blocked
		p.Distribute(AddNotification(pod("ns", fmt.Sprintf("p%d", i), 1), false))
	}
	got := fast.take(t, n)
	for i, e := range got {
		if e.Key != fmt.Sprintf("ns/p%d", i) {
			t.Fatalf("fast handler event %d = %v", i, e)
		}
	}
	if pend := slowReg.Pending(); pend != n-1 {
		t.Fatalf("slow handler Pending() = %d, want %d", pend, n-1)
	}
	close(release)
	waitClosed(t, slowDone, "slow handler to catch up")
	for i, name := range slowSeen {
		if name != fmt.Sprintf("p%d", i) {
			t.Fatalf("slow handler event %d = %s: order lost", i, name)
		}
	}
	if pend := slowReg.Pending(); pend != 0 {
		t.Fatalf("Pending() after catching up = %d", pend)
	}
}

func waitClosedOrRecv(t *testing.T, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(testTimeout):
		t.Fatal("handler never entered")
	}
}

// fakeStore is a minimal informer store: key → object, under a mutex.
type fakeStore struct {
	mu   sync.Mutex
	objs map[string]*api.Pod
}

func (s *fakeStore) List() []*api.Pod {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*api.Pod, 0, len(s.objs))
	for _, o := range s.objs {
		out = append(out, o)
	}
	return out
}

// apply writes the change n describes.
func (s *fakeStore) apply(n Notification[*api.Pod]) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n.Kind == Delete {
		delete(s.objs, n.Obj.Key())
	} else {
		s.objs[n.Obj.Key()] = n.Obj
	}
}

// mirror is a handler that rebuilds the store from what it is told and
// records every notification that does not fit what it already knows: an
// add for a key it has (a duplicate), an update or delete whose old state is
// not the one it has (a lost or duplicated event).
type mirror struct {
	objs     map[string]string // key → resourceVersion
	problems []string
	end      chan struct{}
}

func newMirror() *mirror { return &mirror{objs: map[string]string{}, end: make(chan struct{})} }

func (m *mirror) OnAdd(obj *api.Pod, _ bool) {
	if obj.Name == "end" {
		close(m.end)
		return
	}
	if rv, ok := m.objs[obj.Key()]; ok {
		m.problems = append(m.problems, fmt.Sprintf("add %s@%s but have @%s", obj.Key(), obj.ResourceVersion, rv))
	}
	m.objs[obj.Key()] = obj.ResourceVersion
}

func (m *mirror) OnUpdate(oldObj, newObj *api.Pod) {
	if rv := m.objs[newObj.Key()]; rv != oldObj.ResourceVersion {
		m.problems = append(m.problems, fmt.Sprintf("update %s from @%s but have @%q", newObj.Key(), oldObj.ResourceVersion, rv))
	}
	m.objs[newObj.Key()] = newObj.ResourceVersion
}

func (m *mirror) OnDelete(obj *api.Pod, _ bool) {
	if rv := m.objs[obj.Key()]; rv != obj.ResourceVersion {
		m.problems = append(m.problems, fmt.Sprintf("delete %s@%s but have @%q", obj.Key(), obj.ResourceVersion, rv))
	}
	delete(m.objs, obj.Key())
}

// TestLateHandlersSeeSnapshotThenLiveEvents adds handlers while a writer
// goroutine keeps changing the store through Apply. Every handler must end
// with exactly the store's contents, and along the way never receive an
// event that duplicates its snapshot or skips a change. Each write carries a
// new resourceVersion, as the API server's do (API concepts: "resource
// versions"), so a repeated or skipped change shows as a version mismatch.
func TestLateHandlersSeeSnapshotThenLiveEvents(t *testing.T) {
	const (
		keys     = 40
		ops      = 6000
		handlers = 6
	)
	store := &fakeStore{objs: map[string]*api.Pod{}}
	p := mustNew(t, Options[*api.Pod]{Lister: store})
	running(t, p)

	// The writer: the informer's apply loop.
	milestones := make(chan struct{}, handlers)
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		rv := 0
		for i := range ops {
			if i%(ops/handlers) == 0 {
				milestones <- struct{}{}
			}
			key := fmt.Sprintf("p%d", (i*7)%keys)
			rv++
			p.Apply(func(emit func(Notification[*api.Pod])) {
				store.mu.Lock()
				old, ok := store.objs["ns/"+key]
				store.mu.Unlock()
				var n Notification[*api.Pod]
				switch {
				case !ok:
					n = AddNotification(pod("ns", key, rv), false)
				case rv%5 == 0:
					n = DeleteNotification(old, rv%10 == 0)
				default:
					n = UpdateNotification(old, pod("ns", key, rv))
				}
				store.apply(n)
				emit(n)
			})
		}
	}()

	// Handlers join while the writer runs.
	mirrors := make([]*mirror, handlers)
	for i := range mirrors {
		waitClosedOrRecv(t, milestones)
		mirrors[i] = newMirror()
		mustAdd(t, p, mirrors[i], HandlerOptions{Name: fmt.Sprintf("late-%d", i)})
	}
	waitClosed(t, writerDone, "writer")
	p.Distribute(AddNotification(pod("ns", "end", 0), false))

	want := map[string]string{}
	for _, o := range store.List() {
		want[o.Key()] = o.ResourceVersion
	}
	for i, m := range mirrors {
		waitClosed(t, m.end, "end marker")
		if len(m.problems) > 0 {
			t.Errorf("handler %d: %d inconsistent events, first: %s", i, len(m.problems), m.problems[0])
		}
		if len(m.objs) != len(want) {
			t.Errorf("handler %d holds %d objects, store %d", i, len(m.objs), len(want))
		}
		for k, rv := range want {
			if m.objs[k] != rv {
				t.Errorf("handler %d: %s at @%q, store has @%s", i, k, m.objs[k], rv)
			}
		}
	}
}

// TestSnapshotBeforeRun: a handler added before Run gets the snapshot too,
// followed by the live events buffered before Run started it.
func TestSnapshotBeforeRun(t *testing.T) {
	store := &fakeStore{objs: map[string]*api.Pod{"ns/a": pod("ns", "a", 1)}}
	p := mustNew(t, Options[*api.Pod]{Lister: store})
	rec := newRecorder()
	mustAdd(t, p, rec, HandlerOptions{})
	p.Distribute(UpdateNotification(pod("ns", "a", 1), pod("ns", "a", 2)))
	running(t, p)
	want := []event{{Kind: "add", Key: "ns/a", RV: "1", Flag: true}, {Kind: "update", Key: "ns/a", RV: "2", OldRV: "1"}}
	if got := rec.take(t, 2); !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// TestHasSynced: a registration is synced once the source has synced and
// the handler has returned from every initial-list add it is owed — the
// informer's first list for an early handler, the snapshot for a late one.
func TestHasSynced(t *testing.T) {
	var sourceSynced atomic.Bool
	store := &fakeStore{objs: map[string]*api.Pod{}}
	p := mustNew(t, Options[*api.Pod]{Lister: store, HasSynced: sourceSynced.Load})

	release := make(chan struct{})
	seen := make(chan string, 100)
	gated := HandlerFuncs[*api.Pod]{
		AddFunc: func(obj *api.Pod, initial bool) {
			if obj.Name == "b" {
				<-release
			}
			seen <- obj.Name
		},
		UpdateFunc: func(_, obj *api.Pod) { seen <- "update " + obj.Name },
	}
	early := mustAdd(t, p, gated, HandlerOptions{Name: "early"})
	if early.HasSynced() {
		t.Fatal("synced before the source")
	}
	running(t, p)

	// The informer's first list: three objects, then the source reports synced.
	for _, name := range []string{"a", "b", "c"} {
		o := pod("ns", name, 1)
		p.Apply(func(emit func(Notification[*api.Pod])) {
			store.apply(AddNotification(o, true))
			emit(AddNotification(o, true))
		})
	}
	sourceSynced.Store(true)
	if got := <-seen; got != "a" {
		t.Fatalf("first event %q", got)
	}
	if early.HasSynced() {
		t.Fatal("synced while the handler is still inside an initial-list add")
	}
	close(release)
	// The handler handles notifications in order, so once it sees the
	// update below, all three initial adds have returned.
	p.Distribute(UpdateNotification(pod("ns", "a", 1), pod("ns", "a", 2)))
	for want := range slices.Values([]string{"b", "c", "update a"}) {
		if got := <-seen; got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
	if !early.HasSynced() {
		t.Fatal("not synced after the initial list was handled")
	}

	// A late handler starts from the three-object snapshot.
	lateRelease := make(chan struct{})
	lateSeen := make(chan string, 100)
	late := mustAdd(t, p, HandlerFuncs[*api.Pod]{
		AddFunc: func(obj *api.Pod, initial bool) {
			if !initial {
				t.Errorf("snapshot add of %s without isInitialList", obj.Name)
			}
			<-lateRelease
			lateSeen <- obj.Name
		},
		UpdateFunc: func(_, obj *api.Pod) { lateSeen <- "update " + obj.Name },
	}, HandlerOptions{Name: "late"})
	if late.HasSynced() {
		t.Fatal("late handler synced before handling its snapshot")
	}
	if !early.HasSynced() {
		t.Fatal("adding a handler unsynced an existing one")
	}
	close(lateRelease)
	p.Distribute(UpdateNotification(pod("ns", "c", 1), pod("ns", "c", 2)))
	for range 3 {
		<-lateSeen
	}
	if got := <-lateSeen; got != "update c" {
		t.Fatalf("late handler: got %q after its snapshot", got)
	}
	if !late.HasSynced() {
		t.Fatal("late handler not synced after handling its snapshot")
	}

	if err := p.RemoveHandler(late); err != nil {
		t.Fatal(err)
	}
	if late.HasSynced() {
		t.Fatal("a removed registration reports synced")
	}
}

// TestHasSyncedFollowsSource: with nothing to handle, HasSynced is the
// source's answer.
func TestHasSyncedFollowsSource(t *testing.T) {
	var synced atomic.Bool
	p := mustNew(t, Options[*api.Pod]{HasSynced: synced.Load})
	reg := mustAdd(t, p, newRecorder(), HandlerOptions{})
	if reg.HasSynced() {
		t.Fatal("synced before the source")
	}
	synced.Store(true)
	if !reg.HasSynced() {
		t.Fatal("not synced with the source synced and nothing owed")
	}
	p2 := mustNew(t, Options[*api.Pod]{})
	if !mustAdd(t, p2, newRecorder(), HandlerOptions{}).HasSynced() {
		t.Fatal("nil Options.HasSynced must count as synced")
	}
}

// TestRemoveHandler removes a handler in the middle of a call: the call
// finishes, nothing buffered is delivered afterwards, the goroutine exits,
// and the other handler carries on.
func TestRemoveHandler(t *testing.T) {
	p := mustNew(t, Options[*api.Pod]{})
	entered := make(chan struct{}, 1)
	release := make(chan struct{})
	var calls atomic.Int32
	victim := mustAdd(t, p, HandlerFuncs[*api.Pod]{AddFunc: func(*api.Pod, bool) {
		if calls.Add(1) == 1 {
			entered <- struct{}{}
			<-release
		}
	}}, HandlerOptions{Name: "victim"})
	other := newRecorder()
	otherReg := mustAdd(t, p, other, HandlerOptions{Name: "other"})
	// Buffered before Run, so the victim's goroutine takes all ten in one
	// batch: removal must also stop the nine it has taken but not delivered.
	for i := range 10 {
		p.Distribute(AddNotification(pod("ns", fmt.Sprint(i), 1), false))
	}
	running(t, p)
	waitClosedOrRecv(t, entered)
	if pend := victim.Pending(); pend != 9 {
		t.Fatalf("Pending() with the first call in progress = %d, want 9", pend)
	}
	if err := p.RemoveHandler(victim); err != nil {
		t.Fatal(err)
	}
	if victim.Pending() != 0 {
		t.Fatalf("Pending() after remove = %d, want 0: buffer dropped", victim.Pending())
	}
	p.Distribute(AddNotification(pod("ns", "after", 1), false))
	close(release)
	waitClosed(t, victim.Done(), "removed handler's goroutine")
	if c := calls.Load(); c != 1 {
		t.Fatalf("removed handler was called %d times, want 1 (the call in progress)", c)
	}
	if d := victim.Delivered(); d != 1 {
		t.Fatalf("Delivered() = %d, want 1", d)
	}
	other.take(t, 11)
	if regs := p.Registrations(); len(regs) != 1 || regs[0].Name() != "other" || regs[0].Delivered() != otherReg.Delivered() {
		t.Fatalf("Registrations() after remove = %v", regs)
	}

	tests := []struct {
		name string
		reg  *Registration
	}{
		{"twice", victim},
		{"nil", nil},
		{"from another processor", mustAdd(t, mustNew(t, Options[*api.Pod]{}), newRecorder(), HandlerOptions{})},
	}
	for _, tc := range tests {
		if err := p.RemoveHandler(tc.reg); !errors.Is(err, ErrUnknownRegistration) {
			t.Errorf("RemoveHandler %s: err = %v, want ErrUnknownRegistration", tc.name, err)
		}
	}
}

// TestRemoveHandlerBeforeRun: a handler that never started is done at once
// and is not started by Run.
func TestRemoveHandlerBeforeRun(t *testing.T) {
	p := mustNew(t, Options[*api.Pod]{})
	rec := newRecorder()
	reg := mustAdd(t, p, rec, HandlerOptions{})
	p.Distribute(AddNotification(pod("ns", "a", 1), false))
	if err := p.RemoveHandler(reg); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, reg.Done(), "Done of a never-started registration")
	keep := newRecorder()
	mustAdd(t, p, keep, HandlerOptions{})
	running(t, p)
	p.Distribute(AddNotification(pod("ns", "b", 1), false))
	keep.take(t, 1)
	if len(rec.ch) != 0 {
		t.Fatalf("removed handler received %d events", len(rec.ch))
	}
}

// TestHandlerRemovesItself: RemoveHandler called from inside the handler
// does not deadlock.
func TestHandlerRemovesItself(t *testing.T) {
	p := mustNew(t, Options[*api.Pod]{})
	var reg *Registration
	removed := make(chan error, 1)
	var calls atomic.Int32
	reg = mustAdd(t, p, HandlerFuncs[*api.Pod]{AddFunc: func(*api.Pod, bool) {
		if calls.Add(1) == 1 {
			removed <- p.RemoveHandler(reg)
		}
	}}, HandlerOptions{})
	p.Distribute(AddNotification(pod("ns", "a", 1), false))
	p.Distribute(AddNotification(pod("ns", "b", 1), false))
	running(t, p)
	if err := <-removed; err != nil {
		t.Fatal(err)
	}
	waitClosed(t, reg.Done(), "self-removed handler")
	if c := calls.Load(); c != 1 {
		t.Fatalf("called %d times after removing itself", c)
	}
}

func TestAddHandlerNames(t *testing.T) {
	p := mustNew(t, Options[*api.Pod]{})
	a := mustAdd(t, p, newRecorder(), HandlerOptions{})
	b := mustAdd(t, p, newRecorder(), HandlerOptions{Name: "deployment"})
	c := mustAdd(t, p, newRecorder(), HandlerOptions{})
	if a.Name() != "handler-1" || b.Name() != "deployment" || c.Name() != "handler-2" {
		t.Fatalf("names %q %q %q", a.Name(), b.Name(), c.Name())
	}
	if _, err := p.AddHandler(newRecorder(), HandlerOptions{Name: "deployment"}); !errors.Is(err, ErrDuplicateName) {
		t.Fatalf("duplicate name: err = %v", err)
	}
	if _, err := p.AddHandler(nil, HandlerOptions{}); !errors.Is(err, ErrNilHandler) {
		t.Fatalf("nil handler: err = %v", err)
	}
	if err := p.RemoveHandler(b); err != nil {
		t.Fatal(err)
	}
	if _, err := p.AddHandler(newRecorder(), HandlerOptions{Name: "deployment"}); err != nil {
		t.Fatalf("name of a removed handler is free again: %v", err)
	}
}

// TestRunLifecycle: Run starts late handlers at once, refuses a second
// call, and after it returns handlers are refused and notifications dropped.
func TestRunLifecycle(t *testing.T) {
	p := mustNew(t, Options[*api.Pod]{})
	stop := running(t, p)
	rec := newRecorder()
	reg := mustAdd(t, p, rec, HandlerOptions{}) // added while running
	p.Distribute(AddNotification(pod("ns", "a", 1), false))
	rec.take(t, 1)
	if err := p.Run(context.Background()); !errors.Is(err, ErrAlreadyRunning) {
		t.Fatalf("second Run: err = %v", err)
	}
	if err := stop(); err != nil {
		t.Fatalf("Run returned %v", err)
	}
	waitClosed(t, reg.Done(), "listener goroutine after Run returned") // already closed
	p.Distribute(AddNotification(pod("ns", "b", 1), false))
	if reg.Pending() != 0 {
		t.Fatalf("Distribute after stop buffered %d notifications", reg.Pending())
	}
	if _, err := p.AddHandler(newRecorder(), HandlerOptions{}); !errors.Is(err, ErrStopped) {
		t.Fatalf("AddHandler after stop: err = %v", err)
	}
	if err := p.Run(context.Background()); !errors.Is(err, ErrAlreadyRunning) {
		t.Fatalf("Run after stop: err = %v", err)
	}
}

// TestRunWaitsForHandlerCalls: Run returns only when the call in progress
// has returned; with a ShutdownTimeout it gives up when the (fake) clock
// says so and names the handler, and the goroutine still exits once the
// call returns.
func TestRunWaitsForHandlerCalls(t *testing.T) {
	tests := []struct {
		name    string
		step    bool // step the clock past the timeout before releasing
		wantErr error
	}{
		{"handler returns within the timeout", false, nil},
		{"handler stuck past the timeout", true, ErrShutdownTimeout},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clk := clock.NewFake(time.Unix(0, 0))
			p := mustNew(t, Options[*api.Pod]{Clock: clk, ShutdownTimeout: 30 * time.Second})
			entered := make(chan struct{}, 1)
			release := make(chan struct{})
			reg := mustAdd(t, p, HandlerFuncs[*api.Pod]{AddFunc: func(*api.Pod, bool) {
				entered <- struct{}{}
				<-release
			}}, HandlerOptions{Name: "stuck"})
			ctx, cancel := context.WithCancel(context.Background())
			errc := make(chan error, 1)
			go func() { errc <- p.Run(ctx) }()
			p.Distribute(AddNotification(pod("ns", "a", 1), false))
			waitClosedOrRecv(t, entered)
			cancel()
			// Run is now waiting on its shutdown timer.
			bctx, bcancel := context.WithTimeout(context.Background(), testTimeout)
			defer bcancel()
			if err := clk.BlockUntilWaiters(bctx, 1); err != nil {
				t.Fatal(err)
			}
			if tc.step {
				clk.Step(30 * time.Second)
				err := <-errc
				if !errors.Is(err, ErrShutdownTimeout) || !strings.Contains(err.Error(), "stuck") {
					t.Fatalf("Run = %v, want ErrShutdownTimeout naming the handler", err)
				}
				close(release)
			} else {
				close(release)
				if err := <-errc; err != nil {
					t.Fatalf("Run = %v", err)
				}
			}
			waitClosed(t, reg.Done(), "listener goroutine")
		})
	}
}

// TestRunWithoutShutdownTimeoutWaits: with ShutdownTimeout 0, Run waits for
// a handler call in progress however long it takes (client-go's
// sharedProcessor.run likewise waits for every listener), and returns nil.
func TestRunWithoutShutdownTimeoutWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := mustNew(t, Options[*api.Pod]{})
		entered := make(chan struct{})
		release := make(chan struct{})
		mustAdd(t, p, HandlerFuncs[*api.Pod]{AddFunc: func(*api.Pod, bool) {
			close(entered)
			<-release
		}}, HandlerOptions{Name: "slow"})
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() { errc <- p.Run(ctx) }()
		p.Distribute(AddNotification(pod("ns", "a", 1), false))
		<-entered
		cancel()
		synctest.Wait() // Run is waiting for the handler, or has wrongly given up
		select {
		case err := <-errc:
			close(release)
			t.Fatalf("Run returned %v while a handler call was still running", err)
		default:
		}
		close(release)
		if err := <-errc; err != nil {
			t.Fatalf("Run = %v, want nil", err)
		}
	})
}
