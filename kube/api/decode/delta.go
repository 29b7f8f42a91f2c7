package decode

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strconv"
)

// Delta encoding: the JSON of one object written as the edits that turn
// another document — its base — into it. The pods of one ReplicaSet are
// the same bytes but for a few dozen short values (name, uid,
// resourceVersion, timestamps, IPs, the token volume's suffix, container
// IDs), so a pod written against a sibling is a tenth of its JSON.
//
// An encoding is a uvarint, the length of the document, then ops until
// the document is complete. Each op is
//
//	uvarint(l) l literal bytes uvarint(c) [varint(from - end)]
//
// : l bytes of the document written as they are, then c bytes copied from
// the base at from, where end is where the previous copy stopped in the
// base (0 at first); the offset is left out when c is 0. Offsets are
// relative, so copies that follow the base in order cost a byte or two.
//
// The encoder (appendDelta) walks both documents in step. Where they
// agree it copies; where they disagree it looks for the point where they
// agree again, cheapest guess first:
//
//  1. at the end of the differing value: the next JSON delimiter in each
//     (a different name, uid, IP, timestamp, of the same or another
//     length) — first at the same offset in the base, the common case —
//     or the one after, for a few tokens walked in step;
//  2. a little further in the document (bytes inserted: a container's
//     lastState after a restart), or in the base (bytes deleted), found
//     by searching the next bytes of one in the next KB of the other;
//  3. otherwise the token is written as a literal and the search goes on
//     from the next one.
//
// Any answer is correct — a bad guess only costs literal bytes — because
// copies are checked byte for byte; the guesses only decide how small the
// encoding gets. The searches have a budget in bytes examined, a few
// times the document's length, so that an object unlike its base costs
// little time: when the budget runs out the rest is one literal.

// minCopy is the shortest run of equal bytes worth a copy op: a shorter
// one costs more as an op (two or three bytes) than as literal bytes, and
// a resynchronisation is only trusted when this many bytes agree.
const minCopy = 8

// lockstepTokens is how many tokens step 1 walks in step; anchorLen is
// how many bytes of one document step 2 searches for in the other, and
// searchWindow how far ahead it looks.
const (
	lockstepTokens = 6
	anchorLen      = 16
	searchWindow   = 1024
)

// isTokenEnd marks the bytes that end a JSON value or key. ':' is left
// out: it only follows a key's closing quote, and inside a string (a
// timestamp) it would split one differing value into several.
var isTokenEnd = [256]bool{'"': true, ',': true, '{': true, '}': true, '[': true, ']': true}

// appendDelta appends to dst the encoding of doc against base. It always
// succeeds; when the documents are unlike, most of doc ends up literal
// and the caller's size check decides what to keep.
func appendDelta(dst, doc, base []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(doc)))
	e := deltaEncoder{dst: dst, doc: doc, base: base, budget: 4*len(doc) + 1024}
	ti, bi := 0, 0 // where doc and base are compared next
	for ti < len(doc) {
		n := commonPrefix(doc[ti:], base[min(bi, len(base)):])
		if n >= minCopy {
			e.copyFrom(ti, bi, n)
			ti, bi = ti+n, bi+n
			continue
		}
		var ok bool
		if ti, bi, ok = e.resync(ti+n, bi+n); !ok {
			break
		}
	}
	e.literalTo(len(doc))
	return e.dst
}

// deltaEncoder is the state of appendDelta.
type deltaEncoder struct {
	dst       []byte
	doc, base []byte
	lit       int // start in doc of the bytes not yet written
	end       int // end in base of the last copy
	budget    int // bytes the searches may still examine
}

// copyFrom writes doc[e.lit:ti] as a literal and n bytes copied from
// base[bi:].
func (e *deltaEncoder) copyFrom(ti, bi, n int) {
	e.dst = binary.AppendUvarint(e.dst, uint64(ti-e.lit))
	e.dst = append(e.dst, e.doc[e.lit:ti]...)
	e.dst = binary.AppendUvarint(e.dst, uint64(n))
	e.dst = binary.AppendVarint(e.dst, int64(bi-e.end))
	e.lit, e.end = ti+n, bi+n
}

// literalTo writes doc[e.lit:ti] as the last op.
func (e *deltaEncoder) literalTo(ti int) {
	if ti == e.lit {
		return
	}
	e.dst = binary.AppendUvarint(e.dst, uint64(ti-e.lit))
	e.dst = append(e.dst, e.doc[e.lit:ti]...)
	e.dst = binary.AppendUvarint(e.dst, 0)
	e.lit = ti
}

// resync finds where doc, from ti, and base, from bi, agree again for at
// least minCopy bytes: the next ti' ≥ ti and a bi' in base. ok is false
// when there is none within the budget.
func (e *deltaEncoder) resync(ti, bi int) (int, int, bool) {
	doc, base := e.doc, e.base
	bi = min(bi, len(base))
	for e.budget > 0 && ti < len(doc) {
		// 1. The ends of the differing values: delimiters in step, for a
		// few tokens (a timestamp differs in several places).
		te, be := ti, bi
		for range lockstepTokens {
			te = nextDelim(doc, te)
			if te >= len(doc) {
				return 0, 0, false
			}
			// Most differing values are as long in both (uids, times,
			// hashes): try the same offset in the base before scanning it.
			if same := be + (te - ti); agree(doc, te, base, same) {
				e.budget -= (te - ti) + minCopy
				return te, same, true
			}
			be = nextDelim(base, be)
			e.budget -= minCopy
			if agree(doc, te, base, be) {
				e.budget -= (te - ti) + (be - bi)
				return te, be, true
			}
			if be >= len(base) || doc[te] != base[be] {
				break // not the same token: step 2
			}
			te, be = te+1, min(be+1, len(base))
		}
		e.budget -= (te - ti) + (be - bi)
		te, be = nextDelim(doc, ti), nextDelim(base, bi)
		if te >= len(doc) {
			return 0, 0, false
		}
		// 2. Inserted bytes: the base's next bytes a little further in
		// doc; deleted bytes: doc's next bytes a little further in the
		// base.
		// Anchors start after the delimiter: bytes.Index looks for their
		// first byte, and a delimiter is everywhere in JSON.
		best, bestTi, bestBi := -1, 0, 0
		if be+1+anchorLen <= len(base) {
			w := doc[te+1 : min(len(doc), te+searchWindow)]
			e.budget -= len(w)
			if q := bytes.Index(w, base[be+1:be+1+anchorLen]); q >= 0 {
				best, bestTi, bestBi = q, te+1+q, be+1
			}
		}
		if te+1+anchorLen <= len(doc) && be+1 < len(base) && best != 0 {
			w := base[be+1 : min(len(base), be+searchWindow)]
			if best > 0 {
				w = w[:min(len(w), best+anchorLen)] // only a nearer point would win
			}
			e.budget -= len(w)
			if p := bytes.Index(w, doc[te+1:te+1+anchorLen]); p >= 0 && (best < 0 || p < best) {
				best, bestTi, bestBi = p, te+1, be+1+p
			}
		}
		if best >= 0 {
			return bestTi, bestBi, true
		}
		// 3. Step over this token and try again from the next.
		ti, bi = te+1, min(be+1, len(base))
	}
	return 0, 0, false
}

// nextDelim returns the index of the first delimiter in b at or after i,
// or len(b).
func nextDelim(b []byte, i int) int {
	for ; i < len(b); i++ {
		if isTokenEnd[b[i]] {
			return i
		}
	}
	return len(b)
}

// agree reports whether a[i:] and b[j:] start with minCopy equal bytes.
func agree(a []byte, i int, b []byte, j int) bool {
	return i+minCopy <= len(a) && j+minCopy <= len(b) &&
		binary.LittleEndian.Uint64(a[i:]) == binary.LittleEndian.Uint64(b[j:])
}

// commonPrefix returns how many leading bytes a and b share: 64 at a time
// while they agree, then eight.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	a, b = a[:n], b[:n]
	if n >= 8 { // most calls end in the first word
		if x := binary.LittleEndian.Uint64(a) ^ binary.LittleEndian.Uint64(b); x != 0 {
			return bits.TrailingZeros64(x) / 8
		}
	}
	i := 0
	for i+64 <= n && string(a[i:i+64]) == string(b[i:i+64]) { // memequal: vector compares
		i += 64
	}
	for ; i+8 <= n; i += 8 {
		if x := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:]); x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// errDelta reports an encoding that does not describe a document: only
// a bug in this file could produce one, and rebuildDelta's callers treat
// it as such.
type errDelta struct{ at int }

func (e errDelta) Error() string { return "api: corrupt delta encoding at byte " + strconv.Itoa(e.at) }

// rebuildDelta returns the document enc encodes against base, in a new
// slice.
func rebuildDelta(enc string, base []byte) ([]byte, error) {
	n, k := uvarintString(enc, 0)
	// Each op takes two bytes or more and copies at most the whole base.
	if k <= 0 || n > uint64(len(enc))*(uint64(len(base))+1) {
		return nil, errDelta{0}
	}
	b := make([]byte, 0, n)
	end := 0
	for i := k; len(b) < int(n); {
		l, k := uvarintString(enc, i)
		if k <= 0 || i+k+int(l) > len(enc) {
			return nil, errDelta{i}
		}
		i += k
		b = append(b, enc[i:i+int(l)]...)
		i += int(l)
		c, k := uvarintString(enc, i)
		if k <= 0 {
			return nil, errDelta{i}
		}
		i += k
		if c == 0 {
			continue
		}
		off, k := varintString(enc, i)
		if k <= 0 {
			return nil, errDelta{i}
		}
		i += k
		from := end + int(off)
		if from < 0 || from+int(c) > len(base) {
			return nil, errDelta{i}
		}
		b = append(b, base[from:from+int(c)]...)
		end = from + int(c)
	}
	if len(b) != int(n) {
		return nil, errDelta{len(enc)}
	}
	return b, nil
}

// uvarintString is binary.Uvarint on enc[i:] without converting it.
func uvarintString(enc string, i int) (uint64, int) {
	var x uint64
	var s uint
	for k := 0; i+k < len(enc) && k < binary.MaxVarintLen64; k++ {
		c := enc[i+k]
		if c < 0x80 {
			return x | uint64(c)<<s, k + 1
		}
		x |= uint64(c&0x7f) << s
		s += 7
	}
	return 0, 0
}

// varintString is binary.Varint on enc[i:] without converting it.
func varintString(enc string, i int) (int64, int) {
	ux, k := uvarintString(enc, i)
	x := int64(ux >> 1)
	if ux&1 != 0 {
		x = ^x
	}
	return x, k
}
