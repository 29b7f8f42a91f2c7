// Package fakelw is a scripted reflector.ListerWatcher for tests: every
// LIST and WATCH the code under test makes is handed to the test, which
// answers it, so that a reflector (alone, or inside an informer) runs in
// lockstep with the test and no step depends on timing.
//
//	code under test ──ListEach / Watch──▶ LW ──Expect──▶ test
//	                                        ◀── Call.List / Fail / Open
//	code under test ◀──Next── Stream ◀── Send / End ── test
//
// A test reads each request with Expect, checks its options (the
// resourceVersion a watch resumes from, sendInitialEvents, ...), and answers
// it: a list's items, an error, or an open watch Stream, into which it
// sends events one at a time. Send returns once the code under test has
// taken the event; the next Expect returns once it made its next request.
// Everything the code did in between has happened before (channel
// synchronisation), so the test may inspect its sink without locks or
// sleeps. Waits that the code under test makes on its clock are stepped
// with clock.Fake as usual.
//
// Every blocking helper gives up after Patience (a guard against a test
// that would otherwise hang; no test waits for it on purpose) and fails
// the test.
//
// There is no client-go counterpart; client-go's reflector tests build
// similar fakes from cache.ListWatch and watch.FakeWatcher.
package fakelw
