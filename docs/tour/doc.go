// Package tour holds the guided tour of kcm (the Markdown chapters beside
// this file, README.md first) and the test that keeps it true: every link
// from a chapter to kcm's code must name a file that exists and, where the
// link's text is a Go identifier, a function, method or type declared in
// that file. A rename that would strand a reader fails `make test` instead.
package tour
