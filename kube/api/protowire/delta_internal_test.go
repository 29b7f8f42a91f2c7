package protowire

import (
	"bytes"
	"math/rand/v2"
	"os"
	"testing"
)

// checkDelta: the encoding of doc against base rebuilds doc exactly.
func checkDelta(t testing.TB, doc, base []byte) int {
	enc := appendDelta(nil, doc, base)
	got, err := applyDelta(string(enc), base)
	if err != nil || !bytes.Equal(got, doc) {
		t.Fatalf("delta of %d bytes against %d: rebuilt %d bytes, %v\ndoc  %x\nbase %x", len(doc), len(base), len(got), err, doc, base)
	}
	return len(enc)
}

// TestDeltaRoundTrip: every encoding rebuilds its document, whatever the
// two documents are; siblings' encodings are small.
func TestDeltaRoundTrip(t *testing.T) {
	pod, err := os.ReadFile("testdata/pod.pb")
	if err != nil {
		t.Fatal(err)
	}
	same := checkDelta(t, pod, pod)
	if same > 8 {
		t.Errorf("a document against itself: %d bytes of delta", same)
	}
	for _, c := range []struct{ name, doc, base string }{
		{"empty document", "", "base"},
		{"empty base", "document", ""},
		{"both empty", "", ""},
		{"a value of the same length", "name=abcdefgh;uid=0123456789abcdef;rest-of-it-long-enough", "name=zyxwvuts;uid=0123456789abcdef;rest-of-it-long-enough"},
		{"a longer value", "name=abcdefghijk;uid=0123456789abcdef;rest-of-it", "name=abc;uid=0123456789abcdef;rest-of-it"},
		{"a shorter value", "name=a;uid=0123456789abcdef;rest-of-it", "name=abcdefghijk;uid=0123456789abcdef;rest-of-it"},
	} {
		checkDelta(t, []byte(c.doc), []byte(c.base))
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		doc := mutate(r, pod)
		checkDelta(t, doc, pod)
		checkDelta(t, pod, doc)
	}
	unlike := make([]byte, 3000)
	for i := range unlike {
		unlike[i] = byte(r.IntN(256))
	}
	checkDelta(t, unlike, pod)
}

// mutate returns a copy of b with a few random edits: bytes changed,
// inserted or deleted.
func mutate(r *rand.Rand, b []byte) []byte {
	out := bytes.Clone(b)
	for range 1 + r.IntN(20) {
		if len(out) == 0 {
			break
		}
		i := r.IntN(len(out))
		n := 1 + r.IntN(40)
		switch r.IntN(3) {
		case 0:
			for j := i; j < min(len(out), i+n); j++ {
				out[j] = byte(r.IntN(256))
			}
		case 1:
			ins := make([]byte, n)
			for j := range ins {
				ins[j] = byte(r.IntN(256))
			}
			out = append(out[:i], append(ins, out[i:]...)...)
		default:
			out = append(out[:i], out[min(len(out), i+n):]...)
		}
	}
	return out
}

// TestApplyDeltaRejects: an encoding that does not fit its base is an
// error, not a panic or a huge allocation.
func TestApplyDeltaRejects(t *testing.T) {
	base := []byte("0123456789")
	for _, enc := range []string{"", "\x05", "\x05\x09abc", "\x04\x00\x04\x10", "\x04\x00\x04\x7f", "\xff\xff\xff\xff\xff\xff\x7f", "\x02\x02ab\x00\x01c\x00", "\x02\x03abc\x00"} {
		if _, err := applyDelta(enc, base); err == nil {
			t.Errorf("%x: no error", enc)
		}
	}
}

// FuzzDelta: any document against any base round-trips.
func FuzzDelta(f *testing.F) {
	f.Add([]byte("name=abcdefgh;rest-of-it"), []byte("name=abc;rest-of-it"))
	f.Fuzz(func(t *testing.T, doc, base []byte) {
		checkDelta(t, doc, base)
		_, _ = applyDelta(string(doc), base) // arbitrary encodings: no panic
	})
}
