package protowire_test

import "runtime"

// runtimeMem is the bytes allocated so far (runtime.MemStats.TotalAlloc).
type runtimeMem struct{ total uint64 }

func (m *runtimeMem) read() {
	var s runtime.MemStats
	runtime.ReadMemStats(&s)
	m.total = s.TotalAlloc
}
