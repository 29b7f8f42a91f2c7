package history

import (
	"hash/fnv"
	"strconv"

	"github.com/kcmlab/kcm/kube/api"
)

// HashLabel is the label on every ControllerRevision that carries the
// hash of its data (history.ControllerRevisionHashLabel).
const HashLabel = "controller.kubernetes.io/hash"

// maxPrefix bounds the parent's name in a revision name, so that
// <prefix>-<hash> stays within the 253 bytes of an object name.
const maxPrefix = 223

// Hash returns a revision's hash as kube-controller-manager computes it
// (history.HashControllerRevision): the 32-bit FNV-1 hash — FNV-1, not
// FNV-1a — of the data bytes, followed, when collisionCount is set, by
// its decimal digits; the sum is written in decimal and each digit mapped
// into SafeEncodeString's alphabet. A set collisionCount of 0 hashes
// differently from an unset one: "0" is written.
//
// The bytes are hashed as they are: two spellings of the same JSON are
// two revisions, which is why StatefulSetPatch must produce exactly the
// bytes kube-controller-manager produces.
func Hash(data []byte, collisionCount *int32) string {
	h := fnv.New32()
	h.Write(data) // a hash.Hash never fails to write
	if collisionCount != nil {
		h.Write(strconv.AppendInt(nil, int64(*collisionCount), 10))
	}
	return safeEncodeString(strconv.FormatUint(uint64(h.Sum32()), 10))
}

// HashControllerRevision is Hash of a revision's data.
func HashControllerRevision(rev *api.ControllerRevision, collisionCount *int32) string {
	return Hash(rev.Data.Raw, collisionCount)
}

// RevisionName is <prefix>-<hash>, the prefix (the parent's name) cut to
// 223 bytes (history.ControllerRevisionName).
func RevisionName(prefix, hash string) string {
	if len(prefix) > maxPrefix {
		prefix = prefix[:maxPrefix]
	}
	return prefix + "-" + hash
}

// safeAlphabet has no vowels, so no word forms by accident, and no
// look-alike characters (apimachinery's rand alphanums).
const safeAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// safeEncodeString maps each character of s into safeAlphabet
// (apimachinery's rand.SafeEncodeString; s is ASCII digits here).
func safeEncodeString(s string) string {
	out := make([]byte, len(s))
	for i := range len(s) {
		out[i] = safeAlphabet[int(s[i])%len(safeAlphabet)]
	}
	return string(out)
}
