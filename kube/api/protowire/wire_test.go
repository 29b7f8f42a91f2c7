package protowire_test

import (
	"errors"
	"testing"

	"github.com/kcmlab/kcm/kube/api/protowire"
)

// readAll reads every field of msg.
func readAll(msg []byte) ([]protowire.Field, error) {
	var out []protowire.Field
	r := protowire.NewReader(msg)
	for !r.Done() {
		f, err := r.Next()
		if err != nil {
			return out, err
		}
		out = append(out, f)
	}
	return out, nil
}

// TestReaderWireTypes checks the reader against the encoding rules of the
// protobuf wire format (protobuf.dev/programming-guides/encoding): tags
// are field<<3|type varints, varints are 7 bits a byte low first and at
// most 10 bytes, and each wire type says how to step over its value.
func TestReaderWireTypes(t *testing.T) {
	for _, c := range []struct {
		name string
		in   []byte
		num  int32
		typ  protowire.Type
		uint uint64
		data string
	}{
		{"varint, one byte (field 1, 150 needs two)", []byte{0x08, 0x96, 0x01}, 1, protowire.Varint, 150, ""},
		{"varint, max uint64 in ten bytes", []byte{0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 2, protowire.Varint, 1<<64 - 1, ""},
		{"varint, non-minimal but valid", []byte{0x08, 0x80, 0x00}, 1, protowire.Varint, 0, ""},
		{"length-delimited string", []byte{0x12, 0x03, 'a', 'b', 'c'}, 2, protowire.Bytes, 0, "abc"},
		{"length-delimited, empty", []byte{0x1a, 0x00}, 3, protowire.Bytes, 0, ""},
		{"fixed32, little-endian", []byte{0x25, 0x01, 0x02, 0x03, 0x04}, 4, protowire.Fixed32, 0x04030201, ""},
		{"fixed64, little-endian", []byte{0x29, 1, 0, 0, 0, 0, 0, 0, 0x80}, 5, protowire.Fixed64, 1 | 0x80<<56, ""},
		{"group, its content as data", []byte{0x33, 0x08, 0x01, 0x34}, 6, protowire.StartGroup, 0, "\x08\x01"},
		{"nested groups", []byte{0x33, 0x3b, 0x3c, 0x34}, 6, protowire.StartGroup, 0, "\x3b\x3c"},
		{"largest field number", []byte{0xf8, 0xff, 0xff, 0xff, 0x0f, 0x00}, protowire.MaxFieldNumber, protowire.Varint, 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs, err := readAll(c.in)
			if err != nil {
				t.Fatal(err)
			}
			if len(fs) != 1 {
				t.Fatalf("read %d fields, want 1", len(fs))
			}
			f := fs[0]
			if f.Num != c.num || f.Type != c.typ || f.Uint != c.uint || string(f.Data) != c.data || f.Start != 0 || f.End != len(c.in) {
				t.Errorf("got field %d type %d uint %d data %q [%d,%d), want %d type %d uint %d data %q [0,%d)",
					f.Num, f.Type, f.Uint, f.Data, f.Start, f.End, c.num, c.typ, c.uint, c.data, len(c.in))
			}
		})
	}
}

// TestReaderRejectsMalformed: every malformed input is an error wrapping
// ErrMalformed and the precise sentinel, never a panic and never a read
// past the input.
func TestReaderRejectsMalformed(t *testing.T) {
	deep := []byte{}
	for range protowire.MaxGroupDepth + 1 {
		deep = append(deep, 0x0b) // start group, field 1
	}
	for _, c := range []struct {
		name string
		in   []byte
		want error
	}{
		{"tag cut inside its varint", []byte{0x80}, protowire.ErrTruncated},
		{"varint value missing", []byte{0x08}, protowire.ErrTruncated},
		{"varint of eleven bytes", []byte{0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, protowire.ErrOverflow},
		{"varint above 2^64-1 (tenth byte 2)", []byte{0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}, protowire.ErrOverflow},
		{"length beyond the input", []byte{0x12, 0x05, 'a'}, protowire.ErrTruncated},
		{"length one past the input (counting the length's own byte)", []byte{0x12, 0x02, 'a'}, protowire.ErrTruncated},
		{"length of 2^63 (no allocation)", []byte{0x12, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, protowire.ErrTruncated},
		{"fixed32 cut", []byte{0x25, 1, 2, 3}, protowire.ErrTruncated},
		{"fixed64 cut", []byte{0x29, 1, 2, 3, 4, 5, 6, 7}, protowire.ErrTruncated},
		{"wire type 6", []byte{0x0e}, protowire.ErrWireType},
		{"wire type 7", []byte{0x0f}, protowire.ErrWireType},
		{"end group with no start", []byte{0x0c}, protowire.ErrWireType},
		{"field number 0", []byte{0x00, 0x00}, protowire.ErrFieldNumber},
		{"field number 2^29", []byte{0x80, 0x80, 0x80, 0x80, 0x10, 0x00}, protowire.ErrFieldNumber},
		{"group never ends", []byte{0x0b, 0x08, 0x01}, protowire.ErrTruncated},
		{"group ends with another field's end", []byte{0x0b, 0x14}, protowire.ErrWireType},
		{"group with a cut fixed64 inside", []byte{0x0b, 0x11, 1, 2}, protowire.ErrTruncated},
		{"groups nested past MaxGroupDepth", deep, protowire.ErrDepth},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := readAll(c.in)
			if !errors.Is(err, c.want) || !errors.Is(err, protowire.ErrMalformed) {
				t.Errorf("got %v, want an error wrapping %v and ErrMalformed", err, c.want)
			}
		})
	}
}

// TestFieldConversions: a field the schema knows must come with its wire
// type, and an int32 must fit (protobuf sign-extends int32 to 64 bits).
func TestFieldConversions(t *testing.T) {
	neg := protowire.AppendUint(nil, 1, uint64(1<<64-5)) // int64 -5, ten bytes
	fs, err := readAll(neg)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := fs[0].Int64(); err != nil || v != -5 {
		t.Errorf("Int64 = %d, %v; want -5", v, err)
	}
	if v, err := fs[0].Int32(); err != nil || v != -5 {
		t.Errorf("Int32 = %d, %v; want -5", v, err)
	}
	big, _ := readAll(protowire.AppendUint(nil, 1, 1<<40))
	if _, err := big[0].Int32(); !errors.Is(err, protowire.ErrFieldType) {
		t.Errorf("Int32 of 2^40: %v, want ErrFieldType", err)
	}
	str, _ := readAll(protowire.AppendString(nil, 1, "x"))
	if _, err := str[0].Int64(); !errors.Is(err, protowire.ErrFieldType) {
		t.Errorf("Int64 of a string: %v, want ErrFieldType", err)
	}
	if _, err := str[0].Bool(); !errors.Is(err, protowire.ErrFieldType) {
		t.Errorf("Bool of a string: %v, want ErrFieldType", err)
	}
	if _, err := fs[0].Message(); !errors.Is(err, protowire.ErrFieldType) {
		t.Errorf("Message of a varint: %v, want ErrFieldType", err)
	}
}

// TestAppendVarintRoundTrip: what AppendVarint writes, ConsumeVarint
// reads back, in SizeVarint bytes.
func TestAppendVarintRoundTrip(t *testing.T) {
	for _, v := range []uint64{0, 1, 127, 128, 300, 1<<32 - 1, 1 << 56, 1<<64 - 1} {
		b := protowire.AppendVarint(nil, v)
		got, n, err := protowire.ConsumeVarint(b)
		if err != nil || got != v || n != len(b) || n != protowire.SizeVarint(v) {
			t.Errorf("%d: wrote %x, read %d in %d bytes (%v), SizeVarint %d", v, b, got, n, err, protowire.SizeVarint(v))
		}
	}
}
