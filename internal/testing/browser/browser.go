package browser

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"

	"github.com/gorilla/websocket"
)

// Browser is one running headless Chromium and the DevTools connection to
// it.
type Browser struct {
	cmd     *exec.Cmd
	profile string
	ws      *websocket.Conn
	// stderr keeps the browser's last output lines, for error messages.
	stderr *tail

	writeMu sync.Mutex // one writer on ws at a time
	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan response // guarded by mu
	// problems are the page errors seen (exceptions, console errors), by
	// session; guarded by mu.
	problems map[string][]string
	// noted is closed (and replaced) whenever a problem is added;
	// guarded by mu.
	noted   chan struct{}
	readErr error // why the reader stopped; guarded by mu

	readDone, exited chan struct{}
}

type response struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// message is anything the browser sends.
type message struct {
	ID        int64           `json:"id"`
	Method    string          `json:"method"`
	Params    json.RawMessage `json:"params"`
	SessionID string          `json:"sessionId"`
	response
}

// Launch starts the Chromium at path and connects to it. ctx bounds the
// start only.
func Launch(ctx context.Context, path string) (*Browser, error) {
	profile, err := os.MkdirTemp("", "kcm-chromium-")
	if err != nil {
		return nil, fmt.Errorf("browser: profile directory: %w", err)
	}
	cmd := exec.Command(path, append(Flags(profile), "about:blank")...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // Close kills its helpers too
	pipe, err := cmd.StderrPipe()
	if err != nil {
		_ = os.RemoveAll(profile)
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		_ = os.RemoveAll(profile)
		return nil, fmt.Errorf("browser: starting %s: %w", path, err)
	}
	b := &Browser{cmd: cmd, profile: profile, stderr: &tail{}, pending: map[int64]chan response{},
		problems: map[string][]string{}, noted: make(chan struct{}), readDone: make(chan struct{}), exited: make(chan struct{})}
	found := make(chan string, 1)
	go b.watchStderr(pipe, found)
	var url string
	select {
	case url = <-found:
	case <-b.exited:
		b.cleanup()
		return nil, fmt.Errorf("browser: %s exited before listening: %s", path, b.stderr.String())
	case <-ctx.Done():
		b.kill()
		return nil, fmt.Errorf("browser: waiting for %s to listen: %w; its output: %s", path, ctx.Err(), b.stderr.String())
	}
	d := websocket.Dialer{ReadBufferSize: 1 << 16, WriteBufferSize: 1 << 16}
	ws, _, err := d.DialContext(ctx, url, nil)
	if err != nil {
		b.kill()
		return nil, fmt.Errorf("browser: connecting to %s: %w", url, err)
	}
	ws.SetReadLimit(256 << 20) // screenshots
	b.ws = ws
	go b.read()
	return b, nil
}

// watchStderr hands the DevTools URL to found, keeps the output's tail,
// and reaps the process once its stderr closes.
func (b *Browser) watchStderr(r io.Reader, found chan<- string) {
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 64<<10), 1<<20)
	for s.Scan() {
		line := s.Text()
		b.stderr.add(line)
		if rest, ok := strings.CutPrefix(line, "DevTools listening on "); ok {
			select {
			case found <- strings.TrimSpace(rest):
			default:
			}
		}
	}
	_, _ = io.Copy(io.Discard, r)
	_ = b.cmd.Wait()
	close(b.exited)
}

// read dispatches answers and keeps page errors until the socket closes.
func (b *Browser) read() {
	defer close(b.readDone)
	for {
		var m message
		if err := b.ws.ReadJSON(&m); err != nil {
			b.mu.Lock()
			b.readErr = err
			for id, ch := range b.pending {
				close(ch)
				delete(b.pending, id)
			}
			b.mu.Unlock()
			return
		}
		if m.ID != 0 {
			b.mu.Lock()
			ch := b.pending[m.ID]
			delete(b.pending, m.ID)
			b.mu.Unlock()
			if ch != nil {
				ch <- m.response
			}
			continue
		}
		if p := problemOf(m); p != "" {
			b.mu.Lock()
			b.problems[m.SessionID] = append(b.problems[m.SessionID], p)
			close(b.noted)
			b.noted = make(chan struct{})
			b.mu.Unlock()
		}
	}
}

// problemOf renders an event that reports a page error, "" for others.
func problemOf(m message) string {
	switch m.Method {
	case "Runtime.exceptionThrown":
		var p struct {
			ExceptionDetails struct {
				Text      string `json:"text"`
				URL       string `json:"url"`
				Line      int    `json:"lineNumber"`
				Exception struct {
					Description string `json:"description"`
				} `json:"exception"`
			} `json:"exceptionDetails"`
		}
		_ = json.Unmarshal(m.Params, &p)
		d := p.ExceptionDetails
		return fmt.Sprintf("exception: %s %s (%s:%d)", d.Text, d.Exception.Description, d.URL, d.Line)
	case "Runtime.consoleAPICalled":
		var p struct {
			Type string `json:"type"`
			Args []struct {
				Value       any    `json:"value"`
				Description string `json:"description"`
			} `json:"args"`
		}
		_ = json.Unmarshal(m.Params, &p)
		if p.Type != "error" && p.Type != "assert" {
			return ""
		}
		var parts []string
		for _, a := range p.Args {
			parts = append(parts, fmt.Sprint(a.Value, a.Description))
		}
		return "console." + p.Type + ": " + strings.Join(parts, " ")
	case "Log.entryAdded":
		var p struct {
			Entry struct {
				Level, Text, URL string
			} `json:"entry"`
		}
		_ = json.Unmarshal(m.Params, &p)
		if p.Entry.Level != "error" {
			return ""
		}
		return "log: " + p.Entry.Text + " " + p.Entry.URL
	}
	return ""
}

// ErrClosed: the connection to the browser is gone.
var ErrClosed = errors.New("browser: connection closed")

// call sends one command (in session, "" for the browser) and decodes its
// result into out (nil: ignored).
func (b *Browser) call(ctx context.Context, session, method string, params, out any) error {
	b.mu.Lock()
	if b.readErr != nil {
		err := b.readErr
		b.mu.Unlock()
		return fmt.Errorf("%w: %s: %w", ErrClosed, method, err)
	}
	b.nextID++
	id := b.nextID
	ch := make(chan response, 1)
	b.pending[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	b.writeMu.Lock()
	err := b.ws.WriteJSON(msg)
	b.writeMu.Unlock()
	if err != nil {
		return fmt.Errorf("browser: %s: %w", method, err)
	}
	select {
	case r, ok := <-ch:
		if !ok {
			return fmt.Errorf("%w: %s", ErrClosed, method)
		}
		if r.Error != nil {
			return fmt.Errorf("browser: %s: %s (code %d)", method, r.Error.Message, r.Error.Code)
		}
		if out != nil {
			if err := json.Unmarshal(r.Result, out); err != nil {
				return fmt.Errorf("browser: %s: decoding the result: %w", method, err)
			}
		}
		return nil
	case <-ctx.Done():
		b.mu.Lock()
		delete(b.pending, id)
		b.mu.Unlock()
		return fmt.Errorf("browser: %s: %w", method, ctx.Err())
	}
}

// Close ends the browser: the connection, then the whole process group;
// it returns once both goroutines have ended and the profile is removed.
func (b *Browser) Close() error {
	if b.ws != nil {
		_ = b.ws.Close()
		<-b.readDone
	}
	b.kill()
	return nil
}

func (b *Browser) kill() {
	if b.cmd.Process != nil {
		_ = syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
	}
	<-b.exited
	b.cleanup()
}

func (b *Browser) cleanup() { _ = os.RemoveAll(b.profile) }

// tail keeps the last lines written, for error messages.
type tail struct {
	mu    sync.Mutex
	lines []string
}

func (t *tail) add(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, line)
	if len(t.lines) > 20 {
		t.lines = t.lines[len(t.lines)-20:]
	}
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.lines, "\n")
}
