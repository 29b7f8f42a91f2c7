package protowire_test

import "unsafe"

// unsafeData is the address of s's first byte.
func unsafeData(s string) *byte { return unsafe.StringData(s) }
