// Package resource is Kubernetes' resource.Quantity: the fixed-point
// numbers of a ResourceList ("100m", "1Gi", "12e6"), parsed, added,
// compared and printed exactly as apimachinery does it.
//
// # Where it sits
//
// Package api keeps quantities in their wire form (api.ResourceList is a
// map of strings): most controllers only copy them. The controllers that
// compute with them — the resourcequota controller sums the requests of a
// namespace's pods and writes status.used — parse them here, add and
// compare Quantity values, and write the canonical strings back:
//
//	api.ResourceList ──ParseList──▶ List ──Add/Sub/Cmp──▶ List ──Strings──▶ api.ResourceList
//
// # Guarantees
//
//   - Parse accepts exactly what apimachinery's ParseQuantity accepts, with
//     the same value: a fraction finer than a nano (10^-9) is rounded up,
//     away from zero; a binary-SI quantity above 2^63-1 is capped there; a
//     binary-SI quantity between 0 and 1 becomes decimal-SI. Every error
//     wraps ErrInvalidQuantity.
//   - String is byte for byte apimachinery's Quantity.String: the input
//     itself when apimachinery keeps it ("+1", "1.500", "5.Ki" print as
//     given), else the canonical form — the largest exponent that is a
//     multiple of three (of 1024 for binary SI) with an integer mantissa,
//     and its suffix. Apimachinery's oddities are kept: a decimal-SI
//     exponent past "E" prints no suffix at all.
//   - Add and Sub are exact (arbitrary precision); a zero receiver takes
//     the other operand's format, as (*Quantity).Add does. Cmp is exact.
//   - Value and MilliValue round up, away from zero, as apimachinery
//     documents; a result beyond int64 is clamped to math.MaxInt64 or
//     math.MinInt64 (apimachinery leaves overflow undefined, and its
//     answer there depends on its internal representation).
//   - A Quantity is an immutable value, safe to copy and share between
//     goroutines; the zero value is 0 in DecimalSI.
//
// The tests hold vectors produced by k8s.io/apimachinery v0.37.2 itself
// (parse, canonical string, JSON, sums, differences, comparisons).
//
// One concept per file: quantity.go (Quantity, Format, the constructors,
// Add, Sub, Cmp, Value, RoundUp), parse.go (Parse, MustParse, ErrInvalidQuantity,
// the suffixes), format.go (String and the canonical form, MarshalJSON,
// UnmarshalJSON), list.go (List, ParseList, Strings).
//
// # client-go names
//
// Quantity ≈ k8s.io/apimachinery/pkg/api/resource.Quantity (value methods
// here: Add and Sub return the result); Parse ≈ ParseQuantity; List ≈
// core/v1 ResourceList with parsed values.
package resource
