package hashorder

import (
	"encoding/hex"
	"hash/fnv"
	"slices"
	"strings"
)

// Hash is the hex FNV-128a hash of a value's text (DeepHashObject's hash,
// written as upstream's deepHashObjectToString writes it).
func Hash(text string) string {
	h := fnv.New128a()
	h.Write([]byte(text))
	return hex.EncodeToString(h.Sum(nil))
}

// Sort sorts xs in place by the hash of each element's text, stably, and
// returns the hashes in the new order. Comparing the hex strings orders
// as comparing the hash bytes does.
func Sort[T any](xs []T, text func(T) string) []string {
	type hashed struct {
		h string
		x T
	}
	hs := make([]hashed, len(xs))
	for i, x := range xs {
		hs[i] = hashed{Hash(text(x)), x}
	}
	slices.SortStableFunc(hs, func(a, b hashed) int { return strings.Compare(a.h, b.h) })
	out := make([]string, len(hs))
	for i := range hs {
		xs[i], out[i] = hs[i].x, hs[i].h
	}
	return out
}
