package quota

// The scope functions, for the tests that tell a requirement that does not
// match from one that cannot be evaluated.
var (
	PodMatchesScope = podMatchesScope
	PVCMatchesScope = pvcMatchesScope
)
