package protocodec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/kcmlab/kcm/kube/api"
)

// The messages of the types whose Go form is not their protobuf form:
// resource.Quantity (a string here), meta/v1 Time and MicroTime,
// util/intstr IntOrString, runtime.RawExtension; and decodeSmall, which
// reads them and map entries.

// decodeSmall reads the fields of a small message (Quantity, Timestamp,
// IntOrString, a map entry): each varint or length-delimited field is
// handed to set; fields of other wire types are skipped.
func decodeSmall(data []byte, set func(num int32, wt int, raw uint64, p []byte) error) error {
	for len(data) > 0 {
		num, wt, n, err := readKey(data)
		if err != nil {
			return err
		}
		data = data[n:]
		var raw uint64
		var p []byte
		switch wt {
		case wireVarint:
			raw, n, err = readVarint(data)
		case wireBytes:
			p, n, err = readBytes(data)
		default:
			n, err = skipValue(data, num, wt, 0)
			wt = -1
		}
		if err != nil {
			return err
		}
		data = data[n:]
		if wt >= 0 {
			if err := set(num, wt, raw, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// want checks that known field num came with wire type want.
func want(num int32, wt, want int) error {
	if wt != want {
		return fmt.Errorf("%w: field %d: %d, want %d", errWireType, num, wt, want)
	}
	return nil
}

// quantityBytes reads resource.Quantity's message {1: string}: the
// string's bytes within data. The string is kept as written (the
// apiserver writes canonical quantities).
func quantityBytes(data []byte) ([]byte, error) {
	var q []byte
	err := decodeSmall(data, func(num int32, wt int, _ uint64, p []byte) error {
		if num == 1 {
			if err := want(num, wt, wireBytes); err != nil {
				return err
			}
			q = p
		}
		return nil
	})
	return q, err
}

// decodeTimestamp reads meta/v1 Timestamp {1: seconds, 2: nanos} as
// apimachinery's Time and MicroTime do: an empty message is the zero
// time, and Time drops the nanoseconds (its JSON form has none). A
// MicroTime keeps microseconds only: apimachinery keeps the nanoseconds
// a protobuf client may have stored, but the JSON form, which kcm's JSON
// decoding reads, has six digits. The time is in time.Local, as the JSON
// decoder gives it.
func decodeTimestamp(data []byte, micro bool) (time.Time, error) {
	if len(data) == 0 {
		return time.Time{}, nil
	}
	var sec, nsec int64
	err := decodeSmall(data, func(num int32, wt int, raw uint64, _ []byte) error {
		switch num {
		case 1:
			sec = int64(raw)
		case 2:
			nsec = int64(int32(raw))
		default:
			return nil
		}
		return want(num, wt, wireVarint)
	})
	if err != nil {
		return time.Time{}, err
	}
	t := time.Unix(sec, nsec)
	if micro {
		t = t.Truncate(time.Microsecond) // as its JSON form, RFC 3339 with 6 digits
	} else {
		t = time.Unix(sec, 0)
	}
	if t.IsZero() {
		return time.Time{}, nil // the zero time, however it was spelt
	}
	return t.Local(), nil
}

// decodeIntOrString reads util/intstr IntOrString {1: type (0 int, 1
// string), 2: intVal, 3: strVal}.
func (d *decoder) decodeIntOrString(data []byte) (api.IntOrString, error) {
	var typ, num int64
	var str string
	err := decodeSmall(data, func(n int32, wt int, raw uint64, p []byte) error {
		switch n {
		case 1:
			typ = int64(raw)
		case 2:
			num = int64(int32(raw))
		case 3:
			str = d.str(p)
			return want(n, wt, wireBytes)
		default:
			return nil
		}
		return want(n, wt, wireVarint)
	})
	if typ == 1 {
		return api.IntOrStringFromString(str), err
	}
	return api.IntOrStringFromInt(int32(num)), err
}

// decodeRawExtension reads runtime.RawExtension {1: raw}; a message
// without raw is nil bytes. JSON in raw is given as the apiserver's JSON
// form gives it (see jsonForm).
func decodeRawExtension(data []byte) ([]byte, error) {
	var raw []byte
	err := decodeSmall(data, func(num int32, wt int, _ uint64, p []byte) error {
		if num == 1 {
			if err := want(num, wt, wireBytes); err != nil {
				return err
			}
			raw = p
		}
		return nil
	})
	if err != nil || raw == nil {
		return nil, err
	}
	return jsonForm(raw), nil
}

// jsonForm returns a copy of a RawExtension's raw bytes as kube-apiserver
// writes them in JSON, which is what kcm's JSON decoding keeps: a
// protobuf object keeps the bytes its creator sent, while the JSON form
// passes them through encoding/json's Encoder, which compacts them and
// escapes <, > and & (a ControllerRevision's data, compared byte for byte
// by the StatefulSet controller, thus reads the same from either wire).
// JSON null is no value, as kcm's JSON decoding reads it; bytes that are
// not JSON are kept as they are.
func jsonForm(raw []byte) []byte {
	var c bytes.Buffer
	if err := json.Compact(&c, raw); err != nil {
		return append([]byte{}, raw...)
	}
	if bytes.Equal(c.Bytes(), []byte("null")) {
		return nil
	}
	if bytes.ContainsAny(c.Bytes(), "<>&\u2028\u2029") {
		var e bytes.Buffer
		json.HTMLEscape(&e, c.Bytes())
		return e.Bytes()
	}
	return c.Bytes()
}
