package api

// IsCompact reports whether m's object is in the compact form: described
// by a remainder rather than by its kept JSON (tests only).
func IsCompact(m *ObjectMeta) bool { return m.src.compact() }
