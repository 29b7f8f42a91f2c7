// Package browser drives a headless Chromium for kcm's browser tests: it
// finds the browser, starts it, and speaks just enough of the Chrome
// DevTools Protocol (CDP) over a WebSocket (gorilla/websocket) to open a
// page, evaluate JavaScript in it, type into it and take a screenshot.
//
// # Place in kcm
//
// Test support only: the pipeline view's test (cmd/kcm) loads
// /debug/pipeline from a real cluster and manager and checks what a
// learner would see. Nothing in the kcm binary imports it.
//
//	test ──CDP over WebSocket──▶ chromium --headless ──HTTP + WebSocket──▶ kcm's /debug/pipeline
//
// # Finding the browser
//
// Find looks at $KCM_CHROMIUM, then for chromium, chromium-browser,
// google-chrome and google-chrome-stable on $PATH. A machine without one
// gets ErrNotFound with what was tried and how to install one (`make test`
// installs Debian's chromium package when it can); the tests fail on it,
// never skip.
//
// # The protocol, as used here
//
// Chromium started with --remote-debugging-port=0 prints "DevTools
// listening on ws://…" on stderr; that socket is the browser's. Each
// command is a JSON object {id, method, params, sessionId}; the answer
// carries the same id and a result or an error; anything without an id is
// an event. A page is a target (Target.createTarget) attached in flat
// mode (Target.attachToTarget, flatten): its commands carry the session's
// id. The events kept are the page's JavaScript exceptions and console or
// log errors (a Content-Security-Policy violation is one), so a test can
// fail on a page that throws.
//
// # Guarantees
//
// Every call takes a context; Close kills the browser's whole process
// group and removes its profile directory, and returns once the reader
// goroutine and the process have ended.
//
// # Counterpart
//
// chromedp and Playwright do this and much more; this package is only
// the part kcm needs, with no dependency beyond gorilla/websocket.
package browser
