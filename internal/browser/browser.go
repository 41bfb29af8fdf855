// Package browser drives a headless Chromium over the DevTools protocol
// (github.com/chromedp/chromedp), for the tests of the pages icount
// writes: open a file, read what the page wrote to its console, run
// script, click, type, take screenshots.
package browser

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// Names Debian's Chromium goes by.
var commands = []string{"chromium", "chromium-browser"}

// Find returns the path of a Chromium, or an error saying how to get one.
func Find() (string, error) {
	for _, c := range commands {
		if p, err := exec.LookPath(c); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no Chromium found (install Debian's chromium: make deps does)")
}

// ForTest starts a headless Chromium for a test, closed when it ends.
// Without one the test is skipped, except in CI (the CI variable set),
// where make deps installs Debian's chromium.
func ForTest(tb testing.TB) *Browser {
	tb.Helper()
	path, err := Find()
	if err != nil {
		if os.Getenv("CI") != "" {
			tb.Fatal(err)
		}
		tb.Skip(err)
	}
	b, err := Start(path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(b.Close)
	return b
}

// Browser is a headless Chromium with a fresh profile of its own.
type Browser struct {
	ctx    context.Context // the browser's first tab
	cancel func()
	dir    string // its user data directory
}

// Start starts Chromium headless, as root may run it, with nothing that
// reaches out to the network: no background networking, component
// updates, sync or QUIC.
func Start(path string) (*Browser, error) {
	dir, err := os.MkdirTemp("", "icount-chromium")
	if err != nil {
		return nil, err
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(dir),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("allow-file-access-from-files", false),
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(alloc)
	b := &Browser{ctx: ctx, dir: dir, cancel: func() { cancelCtx(); cancelAlloc() }}
	if err := chromedp.Do(ctx); err != nil {
		b.Close()
		return nil, fmt.Errorf("starting %s: %w", path, err)
	}
	return b, nil
}

// Close stops the browser and removes its profile.
func (b *Browser) Close() {
	b.cancel()
	// Chromium's children can write in the directory a moment after it
	// stops.
	for range 50 {
		if os.RemoveAll(b.dir) == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Page is one tab with a file open in it.
type Page struct {
	ctx    context.Context
	cancel func()
	mu     sync.Mutex
	errors []string // what the page reported as errors
}

// Open opens the file in a new tab of a window width by height pixels, and
// waits until the page says it is drawn: ready is a script expression that
// becomes true then. It returns how long that took from the navigation's
// start.
func (b *Browser) Open(file string, width, height int64, ready string, timeout time.Duration) (*Page, time.Duration, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, 0, err
	}
	ctx, cancel := chromedp.NewContext(b.ctx)
	p := &Page{ctx: ctx, cancel: cancel}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, height)); err != nil {
		p.Close()
		return nil, 0, err
	}
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				p.mu.Lock()
				p.errors = append(p.errors, m.String())
				p.mu.Unlock()
			}
		}
	}()
	start := time.Now()
	u := url.URL{Scheme: "file", Path: abs}
	tctx, tcancel := context.WithTimeout(ctx, timeout)
	defer tcancel()
	if err := chromedp.Do(tctx, chromedp.Navigate(u.String())); err != nil {
		p.Close()
		return nil, 0, fmt.Errorf("opening %s: %w", file, err)
	}
	if _, err := chromedp.Run(tctx, chromedp.Poll[bool](ready, chromedp.WithPollingTimeout(timeout))); err != nil {
		p.Close()
		return nil, 0, fmt.Errorf("%s: the page was not ready (%s): %w; its errors: %s", file, ready, err, strings.Join(p.Errors(), "; "))
	}
	return p, time.Since(start), nil
}

// Errors are the errors the page wrote to its console, the exceptions
// nothing caught, and the errors the browser logged for it.
func (p *Page) Errors() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.errors...)
}

// actionTimeout bounds each action on a page: chromedp waits without end
// for an element a selector does not find (or finds hidden).
const actionTimeout = time.Minute

// bounded is the page's context for one action.
func (p *Page) bounded() (context.Context, context.CancelFunc) {
	return context.WithTimeout(p.ctx, actionTimeout)
}

// Eval evaluates a script expression, waits for it if it is a promise,
// and decodes its value.
func Eval[T any](p *Page, expr string) (T, error) {
	ctx, cancel := p.bounded()
	defer cancel()
	return chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
}

// Wait polls a script expression until it is true.
func (p *Page) Wait(expr string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(p.ctx, timeout+actionTimeout)
	defer cancel()
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(timeout)))
	return err
}

// Click clicks the first element the CSS selector finds, as a mouse does.
func (p *Page) Click(selector string) error {
	ctx, cancel := p.bounded()
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(selector))); err != nil {
		return fmt.Errorf("clicking %s: %w", selector, err)
	}
	return nil
}

// Type types text into the element the CSS selector finds, key by key.
func (p *Page) Type(selector, text string) error {
	ctx, cancel := p.bounded()
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(selector), text)); err != nil {
		return fmt.Errorf("typing into %s: %w", selector, err)
	}
	return nil
}

// Hover moves the mouse over the middle of the element the CSS selector
// finds.
func (p *Page) Hover(selector string) error {
	ctx, cancel := p.bounded()
	defer cancel()
	box, err := chromedp.Run(ctx, chromedp.Dimensions(chromedp.CSS(selector)))
	if err != nil {
		return fmt.Errorf("%s: %w", selector, err)
	}
	q := box.Content
	x, y := (q[0]+q[2])/2, (q[1]+q[5])/2
	return chromedp.Do(ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x, y))
}

// Screenshot writes a PNG of the whole page to path.
func (p *Page) Screenshot(path string) error {
	ctx, cancel := p.bounded()
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		return err
	}
	return os.WriteFile(path, png, 0o644)
}

// Close closes the tab.
func (p *Page) Close() { p.cancel() }
