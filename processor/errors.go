package processor

import "errors"

// Sentinel errors; callers test them with errors.Is.
var (
	// ErrNilHandler: AddHandler was given a nil Handler.
	ErrNilHandler = errors.New("processor: nil handler")
	// ErrDuplicateName: a handler with this name is already registered.
	ErrDuplicateName = errors.New("processor: duplicate handler name")
	// ErrStopped: the processor's Run has ended; it accepts no handlers.
	ErrStopped = errors.New("processor: stopped")
	// ErrAlreadyRunning: Run was called a second time.
	ErrAlreadyRunning = errors.New("processor: Run called twice")
	// ErrUnknownRegistration: the registration is not (or no longer)
	// registered with this processor.
	ErrUnknownRegistration = errors.New("processor: unknown registration")
	// ErrShutdownTimeout: Run gave up waiting for handlers that did not
	// return within Options.ShutdownTimeout after its context ended.
	ErrShutdownTimeout = errors.New("processor: handlers still running at shutdown timeout")
)
