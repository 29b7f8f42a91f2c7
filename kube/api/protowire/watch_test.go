package protowire_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/kcmlab/kcm/internal/testing/podgen"
	"github.com/kcmlab/kcm/kube/api/protowire"
)

// TestReadRealWatchStream reads the watch stream apimachinery's protobuf
// stream serializer wrote (LengthDelimitedFramer: 4-byte big-endian
// lengths; each frame a raw metav1.WatchEvent {type 1, object 2
// RawExtension {raw 1}}, object.raw an enveloped object).
func TestReadRealWatchStream(t *testing.T) {
	fr := protowire.NewFrameReader(bytes.NewReader(golden(t, "watch.pb")), 0)
	type seen struct{ typ, name, rv string }
	var got []seen
	for {
		frame, err := fr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		e, err := protowire.DecodeEvent(frame)
		if err != nil {
			t.Fatal(err)
		}
		o, err := protowire.Decode(e.Object, protowire.Options{})
		if err != nil {
			t.Fatalf("%s: %v", e.Type, err)
		}
		if o.Kind != "Pod" || o.APIVersion != "v1" {
			t.Errorf("%s: object of type %s %s", e.Type, o.APIVersion, o.Kind)
		}
		got = append(got, seen{e.Type, o.Name, o.ResourceVersion})
	}
	pod := func(i int) seen {
		m := rawMeta(t, podgen.Pod(i))
		return seen{"", m.Name, m.ResourceVersion}
	}
	want := []seen{pod(0), pod(1), pod(2), {"", "", "5000"}}
	for i, typ := range []string{protowire.Added, protowire.Modified, protowire.Deleted, protowire.Bookmark} {
		want[i].typ = typ
	}
	if len(got) != len(want) {
		t.Fatalf("read %d events, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("event %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestDecodeEventEnveloped: an event inside a k8s envelope reads the same.
func TestDecodeEventEnveloped(t *testing.T) {
	ev := protowire.AppendString(nil, 1, "MODIFIED")
	ev = protowire.AppendBytes(ev, 2, protowire.AppendBytes(nil, 1, []byte("obj")))
	for _, in := range [][]byte{ev, protowire.Wrap(nil, "meta.k8s.io/v1", "WatchEvent", ev)} {
		e, err := protowire.DecodeEvent(in)
		if err != nil || e.Type != protowire.Modified || string(e.Object) != "obj" {
			t.Errorf("got %+v, %v", e, err)
		}
	}
}

// TestFrameReaderRejects: a stream cut inside a frame, a frame over the
// limit, and an event without a type are errors; the end of the stream
// between frames is io.EOF.
func TestFrameReaderRejects(t *testing.T) {
	for _, c := range []struct {
		name string
		in   []byte
		want error
	}{
		{"empty stream", nil, io.EOF},
		{"header cut", []byte{0, 0}, protowire.ErrTruncated},
		{"body cut", []byte{0, 0, 0, 9, 1, 2}, protowire.ErrTruncated},
		{"frame over the limit", []byte{0, 0, 1, 0}, protowire.ErrFrameSize},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := protowire.NewFrameReader(bytes.NewReader(c.in), 255).Next()
			if !errors.Is(err, c.want) {
				t.Errorf("got %v, want %v", err, c.want)
			}
		})
	}
	if _, err := protowire.DecodeEvent(protowire.AppendBytes(nil, 2, nil)); !errors.Is(err, protowire.ErrEventType) {
		t.Errorf("event without a type: %v, want ErrEventType", err)
	}
	if _, err := protowire.DecodeEvent([]byte{0x12, 0x02, 0x0a, 0x05}); !errors.Is(err, protowire.ErrTruncated) {
		t.Errorf("object.raw cut: %v, want ErrTruncated", err)
	}
}

// TestFrameReaderGrowsWithTheData: a frame that announces the whole limit
// but sends a few bytes makes the reader hold about frameChunk, not the
// announced size (a hostile or broken stream cannot make it allocate
// what it claims).
func TestFrameReaderGrowsWithTheData(t *testing.T) {
	in := append([]byte{0x00, 0xff, 0xff, 0xff}, make([]byte, 100)...)
	var before, after runtimeMem
	before.read()
	_, err := protowire.NewFrameReader(bytes.NewReader(in), protowire.DefaultMaxFrame).Next()
	after.read()
	if !errors.Is(err, protowire.ErrTruncated) {
		t.Errorf("got %v, want ErrTruncated", err)
	}
	if grew := after.total - before.total; grew > 1<<20 {
		t.Errorf("reading a frame that announced %d bytes and sent 100 allocated %d bytes", 0xffffff, grew)
	}
}

// TestFrameReaderReusesItsBuffer: frames after the first allocate nothing
// when they fit the buffer.
func TestFrameReaderReusesItsBuffer(t *testing.T) {
	var stream []byte
	for range 100 {
		stream = protowire.AppendFrame(stream, []byte("0123456789"))
	}
	fr := protowire.NewFrameReader(bytes.NewReader(stream), 0)
	if _, err := fr.Next(); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(50, func() {
		if f, err := fr.Next(); err != nil || string(f) != "0123456789" {
			t.Fatalf("%q, %v", f, err)
		}
	}); n != 0 {
		t.Errorf("%v allocations per frame, want 0", n)
	}
}
