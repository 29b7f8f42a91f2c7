// Package promreg registers Prometheus collectors so that every component
// of one process can ask for the same metric family: the first request
// registers it, every later one gets the family already registered.
//
// # Where it sits
//
// kcm registers nothing at import time. Each layer makes its families when
// it is built, on the prometheus.Registerer it is given: a reflector, an
// informer's FIFO and processor, a work queue, an elector, the controller
// framework. Many instances of one layer share a registry (one reflector
// per resource, one queue per controller), so all but the first find their
// family registered already. Register turns that case into the family to
// use, and leaves every other failure an error:
//
//	reflector ─┐
//	deltafifo ─┤
//	processor ─┼─▶ promreg.Register(reg, family) ─▶ the family registered on reg
//	queue     ─┤        (AlreadyRegisteredError ─▶ the existing one, when it is
//	lease     ─┤         of the same Go type; any other failure ─▶ error)
//	ctrl      ─┘
//
// It is a runtime internal at the bottom of the import graph: it imports
// only the Prometheus client, so the cache layers may use it.
//
// # Guarantees
//
//   - Register never registers a second family under a description
//     (name, help, labels) already taken: it returns the one registered.
//   - A collector of another Go type under the same description, or a
//     description that clashes in another way (same name, other labels or
//     help), is an error wrapping Prometheus's; the caller's own collector
//     is not registered.
//   - A nil Registerer registers nothing and returns the collector given.
//
// # Kubernetes counterpart
//
// component-base's legacyregistry does the same through its lazy metrics;
// controller-runtime registers its families once, at init, on a global
// registry. Both avoid the case by having one registry per process; kcm
// takes the registry as an argument instead, so tests own theirs.
package promreg
