package protocodec

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/kcmlab/kcm/kube/api"
)

// sample is a test-only struct: protocodec encodes any struct with pb
// tags, and kcm's types have no repeated integers to read packed.
type sample struct {
	Ints  []int32           `pb:"1"`
	Name  string            `pb:"2"`
	Count int32             `pb:"3"`
	Big   int64             `pb:"4"`
	Sub   *sample           `pb:"5"`
	Subs  []sample          `pb:"6"`
	Tags  map[string]string `pb:"7"`
}

// msgField returns field num of message payload p.
func msgField(num int32, p []byte) []byte { return appendString(nil, num, string(p)) }

func varintField(num int32, v uint64) []byte { return appendVarint(appendKey(nil, num, wireVarint), v) }

// TestProtobufRules checks the reading rules of the protobuf encoding
// (protobuf.dev "Encoding": last one wins, embedded messages merge,
// repeated fields append, packed and unpacked repeated scalars).
func TestProtobufRules(t *testing.T) {
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	var packed []byte
	for _, v := range []uint64{1, 2, 300} {
		packed = appendVarint(packed, v)
	}
	entry := func(k, v string) []byte { return msgField(7, cat(appendString(nil, 1, k), appendString(nil, 2, v))) }
	for _, c := range []struct {
		name string
		msg  []byte
		want sample
	}{
		{"last scalar wins", cat(appendString(nil, 2, "a"), varintField(3, 1), appendString(nil, 2, "b"), varintField(3, 2)),
			sample{Name: "b", Count: 2}},
		{"packed and unpacked repeated scalars", cat(varintField(1, 7), appendString(nil, 1, string(packed)), varintField(1, 8)),
			sample{Ints: []int32{7, 1, 2, 300, 8}}},
		{"message given twice merges", cat(msgField(5, cat(appendString(nil, 2, "x"), varintField(3, 4))), msgField(5, appendString(nil, 2, "y"))),
			sample{Sub: &sample{Name: "y", Count: 4}}},
		{"repeated messages append, interleaved", cat(msgField(6, appendString(nil, 2, "1")), appendString(nil, 2, "n"), msgField(6, appendString(nil, 2, "2"))),
			sample{Name: "n", Subs: []sample{{Name: "1"}, {Name: "2"}}}},
		{"map entries, last value wins", cat(entry("a", "1"), entry("b", "2"), entry("a", "3")),
			sample{Tags: map[string]string{"a": "3", "b": "2"}}},
		{"negative int32 sign-extended", cat(varintField(3, uint64(1<<64-5)), varintField(4, uint64(1<<64-6))),
			sample{Count: -5, Big: -6}},
		{"unknown fields of every wire type skipped", cat(unknownFields(), appendString(nil, 2, "k"), unknownFields()),
			sample{Name: "k"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got sample
			if err := Unmarshal(c.msg, &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

// TestMarshalEncoding pins the encoding Marshal writes: every non-pointer
// scalar (zero included) in field order, repeated integers unpacked
// (proto2's default, as the generated code writes), negative int32
// sign-extended to ten bytes, map entries in key order.
func TestMarshalEncoding(t *testing.T) {
	got, err := Marshal(sample{Ints: []int32{-1}, Tags: map[string]string{"b": "2", "a": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	want := bytes.Join([][]byte{
		{0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, // 1: -1
		{0x12, 0x00}, // 2: ""
		{0x18, 0x00}, // 3: 0
		{0x20, 0x00}, // 4: 0
		{0x3a, 0x06, 0x0a, 0x01, 'a', 0x12, 0x01, '1'},
		{0x3a, 0x06, 0x0a, 0x01, 'b', 0x12, 0x01, '2'},
	}, nil)
	if !bytes.Equal(got, want) {
		t.Fatalf("got % x\nwant % x", got, want)
	}
}

// TestMalformed: bytes that are no message of the type are errors that
// wrap api.ErrDecode, never panics: strict prefixes of a pod, wrong wire
// types, overlong varints, bad field numbers and runaway groups.
// MarshalMerge refuses the same framing errors; a field it copies
// untouched is not type-checked (its orig is Unmarshal's input).
func TestMalformed(t *testing.T) {
	pb := readFile(t, "testdata/vectors/pod.pb")
	fails := 0
	for i := range len(pb) {
		var p api.Pod
		if err := Unmarshal(pb[:i], &p); err != nil {
			fails++
			if !errors.Is(err, api.ErrDecode) {
				t.Fatalf("prefix %d: %v does not wrap ErrDecode", i, err)
			}
		}
	}
	if fails < len(pb)/2 {
		t.Errorf("only %d of %d prefixes fail", fails, len(pb))
	}
	deep := []byte{}
	for range maxGroupDepth + 1 {
		deep = appendKey(deep, 900, wireStart)
	}
	for _, c := range []struct {
		name  string
		msg   []byte
		typed bool // framing intact: only Unmarshal sees it
	}{
		{"string as varint", varintField(1, 5), true},                      // ObjectMeta is bytes
		{"varint as bytes", msgField(2, appendString(nil, 25, "x")), true}, // PodSpec.priority is a varint
		{"overlong varint", []byte{0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, false},
		{"varint past 64 bits", []byte{0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}, false},
		{"field number 0", []byte{0x00, 0x01}, false},
		{"length past the end", []byte{0x0a, 0x05, 0x0a}, false},
		{"huge length", []byte{0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f}, false},
		{"wire type 6", []byte{0x0e}, false},
		{"end group alone", []byte{0x0c}, false},
		{"groups too deep", deep, false},
		{"group ended by another", append(appendKey(nil, 900, wireStart), appendKey(nil, 901, wireEnd)...), false},
		{"fixed64 cut", append(appendKey(nil, 900, wireFixed64), 1, 2), false},
		{"bad Time", msgField(1, msgField(8, appendString(nil, 1, "x"))), true},
		{"bad map entry", msgField(1, msgField(11, varintField(1, 3))), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var p api.Pod
			err := Unmarshal(c.msg, &p)
			if !errors.Is(err, api.ErrDecode) {
				t.Fatalf("Unmarshal: %v, want an ErrDecode", err)
			}
			if c.name == "groups too deep" && !errors.Is(err, errDepth) {
				t.Fatalf("Unmarshal: %v, want errDepth", err)
			}
			if c.typed {
				return
			}
			if _, err := MarshalMerge(c.msg, &p, &api.Pod{Spec: api.PodSpec{NodeName: "x"}}); !errors.Is(err, api.ErrDecode) {
				t.Fatalf("MarshalMerge: %v, want an ErrDecode", err)
			}
		})
	}
}

// TestNoProtobuf: types without a protobuf form are refused with
// ErrNoProtobuf, not ErrDecode.
func TestNoProtobuf(t *testing.T) {
	type bad struct {
		F float64 `pb:"1"`
	}
	for _, c := range []struct {
		name string
		err  error
	}{
		{"Unmarshal non-pointer", Unmarshal(nil, api.Pod{})},
		{"Unmarshal nil", Unmarshal(nil, (*api.Pod)(nil))},
		{"Unmarshal float", Unmarshal(nil, &bad{})},
		{"Marshal string", func() error { _, err := Marshal("x"); return err }()},
		{"MarshalMerge mixed", func() error { _, err := MarshalMerge(nil, &api.Pod{}, &api.Node{}); return err }()},
	} {
		if !errors.Is(c.err, ErrNoProtobuf) || errors.Is(c.err, api.ErrDecode) {
			t.Errorf("%s: %v", c.name, c.err)
		}
	}
}

// TestRawExtensionJSONForm: a RawExtension's raw bytes decode as the
// apiserver's JSON form shows them (compacted, <, > and & escaped, as
// encoding/json's Encoder writes them), null as no value, and bytes that
// are not JSON as they are.
func TestRawExtensionJSONForm(t *testing.T) {
	for _, c := range []struct{ raw, want string }{
		{`{"a": [1, 2],  "b": {}}`, `{"a":[1,2],"b":{}}`},
		{`{"c":"a > b && <c>"}`, `{"c":"a \u003e b \u0026\u0026 \u003cc\u003e"}`},
		{"\"\u2028\"", `"\u2028"`},
		{` null `, ``},
		{`k8s` + "\x00\x01", "k8s\x00\x01"},
		{``, ``},
	} {
		var cr api.ControllerRevision
		if err := Unmarshal(msgField(2, appendString(nil, 1, c.raw)), &cr); err != nil {
			t.Fatal(err)
		}
		if string(cr.Data.Raw) != c.want {
			t.Errorf("%q: got %q, want %q", c.raw, cr.Data.Raw, c.want)
		}
		if (c.want == "") != (cr.Data.Raw == nil) && c.raw != "" {
			t.Errorf("%q: got %#v", c.raw, cr.Data.Raw)
		}
	}
}

// TestTimestamps: Time keeps seconds, MicroTime microseconds (as their
// JSON forms), an empty message is the zero time, and so is a timestamp
// that spells the zero time.
func TestTimestamps(t *testing.T) {
	ts := func(sec int64, nsec int32) []byte {
		return append(varintField(1, uint64(sec)), varintField(2, uint64(int64(nsec)))...)
	}
	var l api.Lease
	msg := msgField(2, append(msgField(3, ts(1700000000, 123456789)), msgField(4, nil)...))
	if err := Unmarshal(msg, &l); err != nil {
		t.Fatal(err)
	}
	if got := l.Spec.AcquireTime.UTC().Format(time.RFC3339Nano); got != "2023-11-14T22:13:20.123456Z" {
		t.Errorf("MicroTime: %s", got)
	}
	if l.Spec.RenewTime == nil || !l.Spec.RenewTime.IsZero() {
		t.Errorf("empty MicroTime: %v", l.Spec.RenewTime)
	}
	var p api.Pod
	zero := time.Time{}.Unix()
	msg = append(msgField(1, msgField(8, ts(1700000000, 999999999))), msgField(1, msgField(9, ts(zero, 0)))...)
	if err := Unmarshal(msg, &p); err != nil {
		t.Fatal(err)
	}
	if got := p.CreationTimestamp.UTC().Format(time.RFC3339Nano); got != "2023-11-14T22:13:20Z" {
		t.Errorf("Time: %s", got)
	}
	if p.DeletionTimestamp == nil || p.DeletionTimestamp.Time != (time.Time{}) {
		t.Errorf("zero Time spelt out: %#v", p.DeletionTimestamp)
	}
}

// fresh is compiled by TestConcurrentFirstUse only.
type fresh struct {
	Name  string            `pb:"1"`
	Inner *sample           `pb:"2"`
	Many  []fresh           `pb:"3"`
	Tags  map[string][]byte `pb:"4"`
}

// TestConcurrentFirstUse: goroutines compiling and using a type for the
// first time at once (run with -race) all get the same, whole schema.
func TestConcurrentFirstUse(t *testing.T) {
	in := fresh{Name: "a", Inner: &sample{Name: "b"}, Many: []fresh{{Name: "c"}}, Tags: map[string][]byte{"k": {1}}}
	done := make(chan error)
	for range 8 {
		go func() {
			b, err := Marshal(&in)
			if err == nil {
				var out fresh
				if err = Unmarshal(b, &out); err == nil && !reflect.DeepEqual(out, in) {
					err = errors.New("round trip differs")
				}
			}
			done <- err
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
