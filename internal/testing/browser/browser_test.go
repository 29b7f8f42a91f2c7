package browser

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestFind(t *testing.T) {
	none := func(string) (string, error) { return "", errors.New("not found") }
	if _, err := find("", none); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "apt-get install chromium") {
		t.Fatalf("nothing installed: %v", err)
	}
	if _, err := find("/no/such/chromium", none); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "/no/such/chromium") {
		t.Fatalf("$%s pointing nowhere: %v", EnvPath, err)
	}
	exe := filepath.Join(t.TempDir(), "chrome")
	if err := os.WriteFile(exe, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := find(exe, none); err != nil || got != exe {
		t.Fatalf("$%s = %s: %q, %v", EnvPath, exe, got, err)
	}
	second := func(name string) (string, error) {
		if name == "chromium-browser" {
			return "/usr/bin/chromium-browser", nil
		}
		return "", errors.New("not found")
	}
	if got, err := find("", second); err != nil || got != "/usr/bin/chromium-browser" {
		t.Fatalf("on $PATH: %q, %v", got, err)
	}
}

// launch starts the machine's Chromium for the test; a machine without
// one fails the test with the reason (make test installs it).
func launch(t *testing.T) *Browser {
	t.Helper()
	path, err := Find()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	b, err := Launch(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

const testPage = `<!doctype html><title>t</title>
<input id="in"><button id="go">go</button><p id="out"></p>
<script>
document.getElementById('go').addEventListener('click', () => {
  document.getElementById('out').textContent = 'typed ' + document.getElementById('in').value;
});
</script>`

// A real headless Chromium loads a page, takes typed keys and a mouse
// click, answers JavaScript, reports the page's uncaught exceptions and
// takes a PNG screenshot; Close leaves no process or goroutine behind.
func TestDrivesARealPage(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/throws" {
			_, _ = io.WriteString(w, `<!doctype html><script>throw new Error("boom from the page")</script>`)
			return
		}
		_, _ = io.WriteString(w, testPage)
	}))
	defer srv.Close()
	b := launch(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p, err := b.NewPage(ctx, 800, 600)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Navigate(ctx, srv.URL); err != nil {
		t.Fatal(err)
	}
	if err := p.Type(ctx, "#in", "ns/web-0"); err != nil {
		t.Fatal(err)
	}
	if err := p.Click(ctx, "#go"); err != nil {
		t.Fatal(err)
	}
	if err := p.WaitFor(ctx, `document.getElementById('out').textContent === 'typed ns/web-0'`); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := p.Eval(ctx, `6 * 7`, &n); err != nil || n != 42 {
		t.Fatalf("6 * 7 = %d, %v", n, err)
	}
	if err := p.Eval(ctx, `undefinedThing.x`, nil); err == nil {
		t.Fatal("a throwing expression evaluated without error")
	}
	png, err := p.Screenshot(ctx)
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("screenshot: %d bytes, %v", len(png), err)
	}
	if len(p.Problems()) != 0 {
		t.Fatalf("problems on a clean page: %q", p.Problems())
	}
	if err := p.Navigate(ctx, srv.URL+"/throws"); err != nil {
		t.Fatal(err)
	}
	if err := p.WaitProblem(ctx, "boom from the page"); err != nil {
		t.Fatal(err)
	}
}
