package browser

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Page is one tab, attached in flat mode.
type Page struct {
	b       *Browser
	session string
}

// NewPage opens a blank tab of width × height CSS pixels and enables the
// events that report its errors.
func (b *Browser) NewPage(ctx context.Context, width, height int) (*Page, error) {
	var t struct {
		TargetID string `json:"targetId"`
	}
	if err := b.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &t); err != nil {
		return nil, err
	}
	var a struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": t.TargetID, "flatten": true}, &a); err != nil {
		return nil, err
	}
	p := &Page{b: b, session: a.SessionID}
	for _, m := range []string{"Page.enable", "Runtime.enable", "Log.enable"} {
		if err := p.call(ctx, m, nil, nil); err != nil {
			return nil, err
		}
	}
	err := p.call(ctx, "Emulation.setDeviceMetricsOverride",
		map[string]any{"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}, nil)
	return p, err
}

func (p *Page) call(ctx context.Context, method string, params, out any) error {
	return p.b.call(ctx, p.session, method, params, out)
}

// Navigate loads url and waits until the document has loaded.
func (p *Page) Navigate(ctx context.Context, url string) error {
	var r struct {
		ErrorText string `json:"errorText"`
	}
	if err := p.call(ctx, "Page.navigate", map[string]any{"url": url}, &r); err != nil {
		return err
	}
	if r.ErrorText != "" {
		return fmt.Errorf("browser: loading %s: %s", url, r.ErrorText)
	}
	return p.WaitFor(ctx, `document.readyState === "complete"`)
}

// Eval evaluates the JavaScript expression expr (awaiting a promise) and
// decodes its JSON value into out (nil: ignored).
func (p *Page) Eval(ctx context.Context, expr string, out any) error {
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	err := p.call(ctx, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &r)
	if err != nil {
		return err
	}
	if r.ExceptionDetails != nil {
		return fmt.Errorf("browser: evaluating %q: %s %s", expr, r.ExceptionDetails.Text, r.ExceptionDetails.Exception.Description)
	}
	if out != nil && len(r.Result.Value) > 0 {
		return json.Unmarshal(r.Result.Value, out)
	}
	return nil
}

// WaitFor evaluates expr every 50 ms until it is true, or ctx ends (the
// error then carries expr's last value).
func (p *Page) WaitFor(ctx context.Context, expr string) error {
	for {
		var ok bool
		err := p.Eval(ctx, "!!("+expr+")", &ok)
		if err == nil && ok {
			return nil
		}
		t := time.NewTimer(50 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			if err != nil {
				return fmt.Errorf("browser: waiting for %s: %w (last: %w)", expr, ctx.Err(), err)
			}
			return fmt.Errorf("browser: waiting for %s: %w", expr, ctx.Err())
		case <-t.C:
		}
	}
}

// Type focuses the element selector finds and types text into it, as
// keyboard input (Input.insertText).
func (p *Page) Type(ctx context.Context, selector, text string) error {
	sel, _ := json.Marshal(selector)
	if err := p.Eval(ctx, fmt.Sprintf(`(() => { const e = document.querySelector(%s); e.focus(); e.select && e.select(); return true })()`, sel), nil); err != nil {
		return err
	}
	return p.call(ctx, "Input.insertText", map[string]any{"text": text}, nil)
}

// Click clicks the middle of the element selector finds with the mouse.
func (p *Page) Click(ctx context.Context, selector string) error {
	sel, _ := json.Marshal(selector)
	var at struct{ X, Y float64 }
	expr := fmt.Sprintf(`(() => { const e = document.querySelector(%s); e.scrollIntoView({block: "center"}); const r = e.getBoundingClientRect(); return {X: r.x + r.width / 2, Y: r.y + r.height / 2} })()`, sel)
	if err := p.Eval(ctx, expr, &at); err != nil {
		return err
	}
	for _, typ := range []string{"mousePressed", "mouseReleased"} {
		if err := p.call(ctx, "Input.dispatchMouseEvent",
			map[string]any{"type": typ, "x": at.X, "y": at.Y, "button": "left", "clickCount": 1}, nil); err != nil {
			return err
		}
	}
	return nil
}

// Screenshot returns a PNG of the whole page (beyond the viewport).
func (p *Page) Screenshot(ctx context.Context) ([]byte, error) {
	var m struct {
		CSSContentSize struct {
			Width, Height float64
		} `json:"cssContentSize"`
	}
	if err := p.call(ctx, "Page.getLayoutMetrics", nil, &m); err != nil {
		return nil, err
	}
	var r struct {
		Data string `json:"data"`
	}
	err := p.call(ctx, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true,
		"clip": map[string]any{"x": 0, "y": 0, "width": m.CSSContentSize.Width, "height": m.CSSContentSize.Height, "scale": 1}}, &r)
	if err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(r.Data)
}

// Problems returns the page's errors so far: uncaught exceptions,
// console.error calls, and errors the browser logged (a refused load, a
// Content-Security-Policy violation).
func (p *Page) Problems() []string {
	p.b.mu.Lock()
	defer p.b.mu.Unlock()
	return append([]string(nil), p.b.problems[p.session]...)
}

// WaitProblem waits until one of the page's problems contains substr.
func (p *Page) WaitProblem(ctx context.Context, substr string) error {
	for {
		p.b.mu.Lock()
		for _, pr := range p.b.problems[p.session] {
			if strings.Contains(pr, substr) {
				p.b.mu.Unlock()
				return nil
			}
		}
		noted := p.b.noted
		p.b.mu.Unlock()
		select {
		case <-noted:
		case <-ctx.Done():
			return fmt.Errorf("browser: waiting for a problem with %q: %w (seen: %q)", substr, ctx.Err(), p.Problems())
		}
	}
}
