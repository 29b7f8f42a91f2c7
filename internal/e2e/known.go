package e2e

// KwokNoContainers is the Kind of reasons about kwok's pods having no
// containers: kwok marks a scheduled pod Running and Ready without
// pulling an image or starting a process, so a spec that reads a
// container's output, executes in it, sends it traffic, or waits for an
// image that cannot be pulled to fail cannot pass, whichever manager runs.
const KwokNoContainers = "kwok: no real containers"

// Known are the checked reasons why specs fail under both managers on a
// cluster of kwok nodes. Each was read in the spec's source and seen in
// the failure message of both runs; Compare flags an entry whose spec no
// longer fails under both (Row.Stale), so the list cannot silently outlive
// its reason.
var Known = []Reason{}
