// Package compat runs kcm's real-apiserver tests against every supported
// Kubernetes release, one release after the other, and tabulates the
// outcome: `make compat` (through cmd/kcm-compat). It is not part of
// `make test`: each release costs a kube-apiserver build the first time
// (minutes; cached afterwards under testenv.CacheDir).
//
// # Where it sits
//
// Outside the pipeline, above testenv. For each release of
// testenv.Releases it builds (or finds cached) that release's
// kube-apiserver and etcd with testenv.EnsureRelease, then runs `go test
// -json` on the chosen tests of each package with KCM_KUBE_VERSION set to
// the release, so the very test binaries `make test` runs against the
// reference release start their shared cluster at that release instead:
//
//	compat ──for each release──▶ testenv.EnsureRelease ──▶ go test -json -run '^(…)$' <pkg>
//	                                                            KCM_KUBE_VERSION=<release>
//	                                                            └▶ testenv.Shared ─▶ etcd + kube-apiserver <release>
//
// # What it runs
//
// The tests are grouped (Groups): the release check (testenv: /version
// and etcd's version are the release's), list, watch, WatchList and its
// fallback, WebSocket, 410 relist (kube/rest, informer), and the manager
// smoke test (manager: ServiceAccount, rollout, scale, garbage collection,
// namespace deletion). A group passes on a release when every one of its
// tests ran and passed there.
//
// # Guarantees
//
//   - A test that did not run (renamed, removed, skipped by a build tag)
//     counts as failed, so a group can never pass by running nothing.
//   - A failure outside any test (a package that does not build, a
//     TestMain that reports leaked goroutines) fails every group with a
//     test in that package.
//   - Every failure is reported as a line naming the release and the test
//     ("compat: FAIL Kubernetes v1.35.4: TestX/sub (group watch, package
//     informer)"), with the end of that test's output; the command then
//     exits non-zero.
//   - The matrix (release × group: pass/fail and the time the group's tests
//     took) is printed as markdown, ready for README.md.
//
// # Counterparts
//
// Kubernetes tests version skew with its e2e "skew" jobs; client-go's own
// compatibility promise is documented, not tested per release. This is
// the small, local version of such a job for kcm's engine and manager.
package compat
