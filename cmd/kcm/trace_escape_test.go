package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode"

	"github.com/kcmlab/kcm/deltafifo"
	"github.com/kcmlab/kcm/kube/rest"
	"github.com/kcmlab/kcm/reflector"
)

// TestPrinterEscapesServerStrings: names, resourceVersions, label values
// and Status messages come from the server, and a hostile one could put
// escape sequences in them (clear the screen, set the window title, move
// the cursor) or a newline followed by a forged trace line. Every byte
// the printer writes that is a control character (C0, DEL, C1), a bidi
// override or invalid UTF-8 must come out escaped, one event per line.
func TestPrinterEscapesServerStrings(t *testing.T) {
	const evil = "web\x1b]0;pwned\x07\x1b[2J\r\n12:00:00.000  store      add       forged\u202e\u009b\x9b\xff"
	status := &rest.StatusError{Status: rest.Status{Message: "denied\n" + evil, Code: 403}, Verb: "WATCH", Path: "/api/v1/pods"}
	idx := indexEntries{Namespace: []string{"shop"}, Label: []string{"app=" + evil}, Owner: []string{evil}}
	events := []traceEvent{
		listPage{At: ms(1), Items: 1, RV: evil},
		watchOpened{At: ms(2), RV: evil, TimeoutSeconds: 1},
		watchEvent{At: ms(3), Type: rest.Added, Key: "shop/" + evil, RV: evil, Bytes: 10},
		applied{At: ms(4), Type: deltafifo.Added, Key: "shop/" + evil, RV: evil, Index: idx},
		delivered{At: ms(5), Call: "OnAdd", Key: "shop/" + evil, RV: evil, Listeners: 1},
		watchEvent{At: ms(6), Type: rest.Error, Err: status.Error()},
		watchClosed{At: ms(7), Err: status},
		phaseChange{At: ms(8), From: reflector.Watching, To: reflector.BackingOff, Err: errors.Join(status)},
	}
	p := newPrinter(printerOptions{ShowInitial: true})
	header := p.lines(traceStart{At: t0, Resource: rest.Pods, Server: "https://h/" + evil, Namespace: evil, Transport: "chunked"})
	var out []string
	out = append(out, header...)
	want := 0
	for _, e := range events {
		ls := p.lines(e)
		if len(ls) == 0 {
			t.Errorf("%T printed nothing: the test proves nothing for it", e)
		}
		want += len(ls)
		out = append(out, ls...)
	}
	for _, l := range out {
		for _, r := range l {
			if unicode.IsControl(r) || r == '\u202e' || r == unicode.ReplacementChar {
				t.Errorf("line holds %U unescaped: %q", r, l)
				break
			}
		}
	}
	text := strings.Join(out[len(header):], "\n")
	if got := strings.Count(text, "\n") + 1; got != want {
		t.Errorf("the events printed %d lines, want %d (a newline was not escaped)", got, want)
	}
	if !strings.Contains(text, `web\x1b]0;pwned\x07\x1b[2J\r\n12:00`) || !strings.Contains(text, `\u202e\u009b\x9b\xff`) {
		t.Errorf("the escapes are not readable:\n%s", text)
	}
}

// TestPrinterShowsTimeouts: a LIST or WATCH that failed on a client
// timeout (an error wrapping context.DeadlineExceeded while the trace
// runs) is a failure the reflector backs off from, not the trace stopping:
// the phase change is shown with its cause. (The reflector reports no
// phase change when it is stopped, so the printer hides none.)
func TestPrinterShowsTimeouts(t *testing.T) {
	got := body(printerOptions{}, phaseChange{At: ms(1), From: reflector.Listing, To: reflector.BackingOff,
		Err: fmt.Errorf("list pods: %w", context.DeadlineExceeded)})
	want := []string{"12:00:00.001  reflector  phase     listing → backing-off: list pods: context deadline exceeded"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("printed %q, want %q", got, want)
	}
}
