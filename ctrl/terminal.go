package ctrl

import "errors"

// ErrTerminal is what every error TerminalError wraps:
// errors.Is(err, ErrTerminal) tells a terminal error.
var ErrTerminal = errors.New("terminal error")

// TerminalError marks err as one that retrying cannot cure: a sync that
// returns it is not retried (controller-runtime's reconcile.TerminalError).
// The loop logs it, counts it in controller_runtime_reconcile_errors_total,
// controller_runtime_reconcile_total{result="error"} and
// controller_runtime_terminal_reconcile_errors_total, forgets the key's
// backoff and does not add the key again; the object's next event brings it
// back. Use it for what only a change of the object can fix (a key that is
// not "namespace/name", a spec the apiserver's validation should have
// refused), not for what the world may fix (a conflict, a timeout).
//
// The returned error's text is "terminal error: " and err's; errors.Is and
// errors.As see both ErrTerminal and err. TerminalError(nil) is nil.
func TerminalError(err error) error {
	if err == nil {
		return nil
	}
	return &terminalError{err: err}
}

// IsTerminal reports whether err, or an error it wraps, came from
// TerminalError.
func IsTerminal(err error) bool { return errors.Is(err, ErrTerminal) }

// terminalError is err marked terminal.
type terminalError struct{ err error }

func (e *terminalError) Error() string   { return "terminal error: " + e.err.Error() }
func (e *terminalError) Unwrap() []error { return []error{e.err, ErrTerminal} }
