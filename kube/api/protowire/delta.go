package protowire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// Delta encoding: an object's message written as the edits that turn
// another message — its family's base, see family.go — into it. The pods
// of one ReplicaSet are the same protobuf bytes but for a few dozen short
// values (name, uid, resourceVersion, timestamps, IPs, the token volume's
// suffix, container IDs), so a pod written against a sibling is a fraction
// of its message: about 200 differing bytes of 1.6 KB in bench's pods.
//
// An encoding is uvarint(len(doc)), then ops until doc is complete:
//
//	uvarint(l) l literal bytes uvarint(c) [varint(from - end)]
//
// : l bytes written as they are, then c bytes copied from the base at
// from, where end is where the previous copy stopped (0 at first); the
// offset is left out when c is 0. This is the format of kcm's JSON delta
// (kube/api/decode/delta.go); the encoder differs, as protobuf has no delimiters
// to resynchronise on.
//
// The encoder walks doc and base in step. Where they agree it copies;
// where they disagree it looks for the point where they agree again:
// first at the same offset a few bytes on (a value of the same length —
// most differing values), then the next bytes of doc in a window of the
// base around the same place (a value of another length shifts what
// follows, and a length prefix before it differs too). Any answer is
// correct, since copies are checked byte for byte; the search only
// decides how small the encoding gets, and its cost is bounded per
// mismatch.

// ErrDelta: an encoding that does not fit its base (a bug, not input).
var ErrDelta = errors.New("protowire: delta does not apply to its base")

const (
	deltaMinCopy = 8   // the shortest run worth a copy op
	deltaAnchor  = 8   // bytes of doc searched for in the base
	deltaStep    = 64  // how far past a mismatch a resync is looked for
	deltaWindow  = 256 // how far around the same place the base is searched
)

// appendDelta appends the encoding of doc against base.
func appendDelta(dst, doc, base []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(doc)))
	ti, bi := 0, 0 // next bytes of doc and base compared
	lit := 0       // where the pending literal starts in doc
	end := 0       // where the last copy stopped in the base
	emit := func(from, n int) {
		dst = binary.AppendUvarint(dst, uint64(ti-lit))
		dst = append(dst, doc[lit:ti]...)
		dst = binary.AppendUvarint(dst, uint64(n))
		if n > 0 {
			dst = binary.AppendVarint(dst, int64(from-end))
			end = from + n
		}
	}
	for ti < len(doc) {
		n := commonPrefix(doc[ti:], base[min(bi, len(base)):])
		if n >= deltaMinCopy {
			emit(bi, n)
			ti, bi, lit = ti+n, bi+n, ti+n
			continue
		}
		nt, nb, ok := resync(doc, base, ti+n, bi+n)
		if !ok {
			ti = len(doc) // the rest is literal
			break
		}
		ti, bi = nt, nb
	}
	if lit < len(doc) {
		emit(0, 0)
	}
	return dst
}

// resync finds where doc[ti:] and the base agree again near bi: the
// offsets in each of the next run of deltaMinCopy equal bytes.
func resync(doc, base []byte, ti, bi int) (int, int, bool) {
	// A value of the same length: the same offset, a little further on.
	for k := 0; k < deltaStep && ti+k+deltaMinCopy <= len(doc) && bi+k+deltaMinCopy <= len(base); k++ {
		if binary.LittleEndian.Uint64(doc[ti+k:]) == binary.LittleEndian.Uint64(base[bi+k:]) {
			return ti + k, bi + k, true
		}
	}
	// Another length: the next bytes of doc somewhere around bi.
	lo := max(0, bi-deltaWindow)
	hi := min(len(base), bi+deltaWindow+deltaStep)
	for k := 0; k < deltaStep && ti+k+deltaAnchor <= len(doc); k += deltaAnchor / 2 {
		if lo >= hi {
			break
		}
		if j := bytes.Index(base[lo:hi], doc[ti+k:ti+k+deltaAnchor]); j >= 0 {
			return ti + k, lo + j, true
		}
	}
	if ti+deltaStep < len(doc) {
		return ti + deltaStep, bi + deltaStep, true // give up here; try again further on
	}
	return 0, 0, false
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i+8 <= n && binary.LittleEndian.Uint64(a[i:]) == binary.LittleEndian.Uint64(b[i:]) {
		i += 8
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// applyDelta rebuilds a document from its encoding against base.
func applyDelta(enc string, base []byte) ([]byte, error) {
	e := []byte(enc)
	size, n := binary.Uvarint(e)
	if n <= 0 || size > uint64(16*len(enc)+len(base)+1024) {
		return nil, fmt.Errorf("%w: size", ErrDelta)
	}
	e = e[n:]
	out := make([]byte, 0, size)
	end := 0
	for uint64(len(out)) < size {
		l, n := binary.Uvarint(e)
		if n <= 0 || l > uint64(len(e)-n) {
			return nil, fmt.Errorf("%w: literal", ErrDelta)
		}
		out = append(out, e[n:n+int(l)]...)
		e = e[n+int(l):]
		c, n := binary.Uvarint(e)
		if n <= 0 {
			return nil, fmt.Errorf("%w: copy", ErrDelta)
		}
		e = e[n:]
		if c == 0 {
			continue
		}
		off, n := binary.Varint(e)
		if n <= 0 {
			return nil, fmt.Errorf("%w: offset", ErrDelta)
		}
		e = e[n:]
		from := int64(end) + off
		if from < 0 || c > uint64(len(base)) || from > int64(len(base))-int64(c) {
			return nil, fmt.Errorf("%w: copy outside the base", ErrDelta)
		}
		out = append(out, base[from:from+int64(c)]...)
		end = int(from) + int(c)
	}
	if uint64(len(out)) != size || len(e) != 0 {
		return nil, fmt.Errorf("%w: length", ErrDelta)
	}
	return out, nil
}
