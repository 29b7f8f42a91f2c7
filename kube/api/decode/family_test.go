package decode

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"
	"weak"

	"github.com/kcmlab/kcm/internal/testing/podgen"
	"github.com/kcmlab/kcm/kube/api"
)

// deltaOf reports whether o keeps its JSON as a delta against a base
// other than itself (tests only).
func deltaOf(o *api.RawObject) (*familyDoc, bool) {
	d := familyDocOf(&o.ObjectMeta)
	if d == nil {
		return nil, false
	}
	return d, d.enc != ""
}

// stripped is what a cached RawObject's Raw must return for input: the
// input without managedFields.
func stripped(t *testing.T, input []byte) []byte {
	t.Helper()
	want, err := StripManagedFields(input)
	if err != nil {
		t.Fatal(err)
	}
	return want
}

// decodeCached decodes input as an informer does: managedFields cut, the
// bytes borrowed (the caller's buffer is overwritten afterwards).
func decodeCached(t *testing.T, input []byte) *api.RawObject {
	t.Helper()
	buf := bytes.Clone(input)
	o, err := Borrowed(StrippingManagedFields(Raw()), buf)
	if err != nil {
		t.Fatal(err)
	}
	for i := range buf {
		buf[i] = 'x' // a reused read buffer: the object must not hold it
	}
	return o
}

// TestFamilyRawIsExact is the property test of the family form: every pod
// podgen makes — the pods of 40 ReplicaSets at four versions each
// (container restarts, and relabelled), listed and then updated in the
// order of a watch — gives back exactly its JSON without managedFields,
// from Raw and from Original, while most are kept as deltas.
func TestFamilyRawIsExact(t *testing.T) {
	const pods = 40 * podgen.ReplicasPerSet
	type held struct {
		o    *api.RawObject
		want []byte
	}
	var all []held
	deltas := 0
	check := func(input []byte) {
		o := decodeCached(t, input)
		want := stripped(t, input)
		if _, ok := deltaOf(o); ok {
			deltas++
		}
		all = append(all, held{o, want})
	}
	for i := range pods {
		check(podgen.Pod(i))
	}
	for v := 1; v <= 4; v++ {
		for k := range pods {
			i := podgen.EventTarget(pods, k)
			rv := strconv.Itoa(podgen.BaseResourceVersion + v*pods + k)
			if v%2 == 0 {
				check(podgen.RelabeledPodVersion(i, v, rv))
			} else {
				check(podgen.PodVersion(i, v, rv))
			}
		}
	}
	// Every object read back after all the others were decoded: bases
	// replaced since must still rebuild their members.
	for n, h := range all {
		got := h.o.Raw()
		orig, err := h.o.Original()
		if err != nil || !bytes.Equal(got, h.want) || !bytes.Equal(orig, h.want) {
			t.Fatalf("object %d (%s): Raw differs from its JSON (Original error %v)\n got %s\nwant %s", n, h.o.Name, err, got, h.want)
		}
	}
	if deltas < len(all)/2 {
		t.Errorf("%d of %d objects kept as deltas; the siblings of a ReplicaSet should be", deltas, len(all))
	}
}

// TestFamilyFormIsForCachesOnly: an object decoded without stripping (a
// GET, a write's answer) or without a controller keeps its JSON whole.
func TestFamilyFormIsForCachesOnly(t *testing.T) {
	o, err := Raw().Decode(podgen.Pod(1))
	if err != nil {
		t.Fatal(err)
	}
	if familyDocOf(&o.ObjectMeta) != nil {
		t.Error("an unstripped RawObject was written against a family")
	}
	orphan := decodeCached(t, []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","managedFields":[{}],`+
		`"ownerReferences":[{"apiVersion":"v1","kind":"X","name":"x","uid":"not-a-controller"}]},"data":{"k":"v"}}`))
	if familyDocOf(&orphan.ObjectMeta) != nil {
		t.Error("an object without a controller was written against a family")
	}
	if got := string(orphan.Raw()); got != `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a",`+
		`"ownerReferences":[{"apiVersion":"v1","kind":"X","name":"x","uid":"not-a-controller"}]},"data":{"k":"v"}}` {
		t.Errorf("Raw = %s", got)
	}
}

// member returns a small object of the family of controller uid.
func member(uid, name, extra string) []byte {
	return []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `","namespace":"ns",` +
		`"managedFields":[{"manager":"m"}],"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs",` +
		`"uid":"` + uid + `","controller":true}]},"data":{"a":"one value that is the same in every member of the family",` +
		`"b":"` + extra + `"}}`)
}

// TestFamilyRebase: a member too unlike its base becomes the family's new
// base; members written against the old base still rebuild exactly.
func TestFamilyRebase(t *testing.T) {
	uid := "rebase-" + t.Name()
	first := decodeCached(t, member(uid, "m0", "x"))
	second := decodeCached(t, member(uid, "m1", "y"))
	if d, ok := deltaOf(second); !ok || d.base != familyDocOf(&first.ObjectMeta).base {
		t.Fatal("a sibling was not written against the first member")
	}
	unlike := member(uid, "m2", string(bytes.Repeat([]byte("0123456789abcdef"), 40)))
	third := decodeCached(t, unlike)
	if _, ok := deltaOf(third); ok {
		t.Fatal("a member unlike its base was kept as a large delta")
	}
	fourth := decodeCached(t, member(uid, "m3", string(bytes.Repeat([]byte("0123456789abcdef"), 40))))
	if d, ok := deltaOf(fourth); !ok || d.base != familyDocOf(&third.ObjectMeta).base {
		t.Error("the next member was not written against the new base")
	}
	for _, c := range []struct {
		o    *api.RawObject
		want []byte
	}{{first, member(uid, "m0", "x")}, {second, member(uid, "m1", "y")}, {third, unlike}} {
		if got, want := c.o.Raw(), stripped(t, c.want); !bytes.Equal(got, want) {
			t.Errorf("%s: Raw = %s, want %s", c.o.Name, got, want)
		}
	}
}

// TestFamiliesSplitByShape: objects of two kinds under one controller (a
// DaemonSet's Pods and ControllerRevisions) form two families, each
// written against its own kind, and neither displaces the other's base.
func TestFamiliesSplitByShape(t *testing.T) {
	uid := "shape-" + t.Name()
	revision := func(name string) []byte {
		return []byte(`{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"` + name + `",` +
			`"ownerReferences":[{"apiVersion":"apps/v1","kind":"DaemonSet","name":"ds","uid":"` + uid + `","controller":true}]},` +
			`"data":{"spec":{"template":{"spec":{"containers":[{"name":"agent","image":"agent:1"}]}}}},"revision":1}`)
	}
	cm0 := decodeCached(t, member(uid, "m0", "x"))
	rev0 := decodeCached(t, revision("r0"))
	cm1 := decodeCached(t, member(uid, "m1", "y"))
	rev1 := decodeCached(t, revision("r1"))
	baseOf := func(o *api.RawObject) *familyBase { return familyDocOf(&o.ObjectMeta).base }
	if _, ok := deltaOf(rev0); ok {
		t.Error("the first ControllerRevision was written against a ConfigMap")
	}
	if d, ok := deltaOf(cm1); !ok || d.base != baseOf(cm0) {
		t.Error("the second member was not written against the first of its kind")
	}
	if d, ok := deltaOf(rev1); !ok || d.base != baseOf(rev0) {
		t.Error("the second ControllerRevision was not written against the first")
	}
	if got, want := rev1.Raw(), revision("r1"); !bytes.Equal(got, want) {
		t.Errorf("Raw = %s, want %s", got, want)
	}
}

// waitGone collects garbage until cond holds, polling: cleanups run on
// their own goroutine after a collection.
func waitGone(t *testing.T, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		runtime.GC()
		select {
		case <-ctx.Done():
			t.Fatalf("%s: still there after 30 s of collections", what)
		case <-tick.C:
		}
	}
}

// hasFamily reports whether the table has an entry for controller uid.
func hasFamily(uid string) bool {
	families.RLock()
	defer families.RUnlock()
	for id := range families.m {
		if id.uid == uid {
			return true
		}
	}
	return false
}

// TestFamilyBaseGoesAwayWithItsMembers: the table does not keep a base
// alive — once no object written against it is left, the base is
// collected and its entry removed — so memory stays bounded as owners
// come and go.
func TestFamilyBaseGoesAwayWithItsMembers(t *testing.T) {
	uids := make([]string, 50)
	var bases []weak.Pointer[familyBase]
	objs := make([]*api.RawObject, 0, 2*len(uids))
	for k := range uids {
		uids[k] = fmt.Sprintf("gone-%d-%s", k, t.Name())
		a := decodeCached(t, member(uids[k], "a", "1"))
		objs = append(objs, a, decodeCached(t, member(uids[k], "b", "2")))
		bases = append(bases, weak.Make(familyDocOf(&a.ObjectMeta).base))
	}
	for _, u := range uids {
		if !hasFamily(u) {
			t.Fatalf("no family entry for %s", u)
		}
	}
	// While a member lives, its base does, even with the first member gone.
	keep := objs[1]
	objs = nil
	waitGone(t, "entries of dropped families", func() bool {
		for _, u := range uids[1:] {
			if hasFamily(u) {
				return false
			}
		}
		return true
	})
	if !hasFamily(uids[0]) || bases[0].Value() == nil {
		t.Fatal("the base of a family with a live member was dropped")
	}
	if got, want := keep.Raw(), stripped(t, member(uids[0], "b", "2")); !bytes.Equal(got, want) {
		t.Fatalf("Raw = %s, want %s", got, want)
	}
	runtime.KeepAlive(keep)
	keep = nil
	waitGone(t, "the last family", func() bool { return !hasFamily(uids[0]) })
	for k, b := range bases {
		if b.Value() != nil {
			t.Errorf("base %d is still alive", k)
		}
	}
}

// TestFamiliesUnderConcurrentDecoding: decoders on many goroutines found,
// rebase and read families at once (run with -race); every object reads
// back exactly.
func TestFamiliesUnderConcurrentDecoding(t *testing.T) {
	const pods = 16
	inputs := make([][]byte, 0, 3*pods)
	for i := range pods {
		inputs = append(inputs, podgen.Pod(i), podgen.PodVersion(i, 1, "9"), podgen.RelabeledPodVersion(i, 2, "10"))
	}
	wants := make([][]byte, len(inputs))
	for k, in := range inputs {
		wants[k] = stripped(t, in)
	}
	codec := StrippingManagedFields(Raw())
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for round := range 10 {
				for k := range inputs {
					k := (k + g*7 + round) % len(inputs)
					o, err := Borrowed(codec, inputs[k])
					if err != nil {
						t.Error(err)
						return
					}
					if !bytes.Equal(o.Raw(), wants[k]) {
						t.Errorf("input %d: Raw differs", k)
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

// TestSharedMapsAreHeldWeakly: the table of shared label maps does not
// keep a map alive once no object uses it (after a relabel, the old
// labels' map is garbage), and a map it still holds is shared.
func TestSharedMapsAreHeldWeakly(t *testing.T) {
	labels := `{"app":"weak-` + t.Name() + `"}`
	obj := func() *api.RawObject {
		return decodeCached(t, []byte(`{"metadata":{"name":"a","labels":`+labels+`}}`))
	}
	a, b := obj(), obj()
	if mapID(a.Labels) != mapID(b.Labels) {
		t.Fatal("equal labels not shared")
	}
	w := weakMap(a.Labels)
	runtime.KeepAlive(a)
	runtime.KeepAlive(b)
	a, b = nil, nil
	waitGone(t, "the unused labels map", func() bool { return strongMap(w) == nil })
}

// FuzzDelta: the encoding of any document against any base rebuilds the
// document exactly.
func FuzzDelta(f *testing.F) {
	f.Add(must(StripManagedFields(podgen.Pod(1))), must(StripManagedFields(podgen.Pod(0))))
	f.Add(must(StripManagedFields(podgen.PodVersion(1, 3, "77"))), must(StripManagedFields(podgen.Pod(0))))
	f.Add([]byte(`{"a":"b"}`), []byte(``))
	f.Add([]byte(``), []byte(`{"a":"b"}`))
	f.Add([]byte(`{"a":"0123456789","b":[1,2,3]}`), []byte(`{"a":"0123456789","c":[1,2,3],"b":[1,2,3]}`))
	f.Fuzz(func(t *testing.T, doc, base []byte) {
		enc := appendDelta(nil, doc, base)
		got, err := rebuildDelta(string(enc), base)
		if err != nil || !bytes.Equal(got, doc) {
			t.Fatalf("rebuild = %q, %v; want %q", got, err, doc)
		}
		// A cut encoding is an error or some document, never a panic.
		for cut := 0; cut < len(enc); cut += 1 + len(enc)/16 {
			_, _ = rebuildDelta(string(enc[:cut]), base)
		}
	})
}
