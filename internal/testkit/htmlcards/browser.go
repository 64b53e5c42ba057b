package htmlcards

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"sync"

	"github.com/chromedp/chromedp"
)

// ErrNoChromium is returned when no Chromium is installed.
var ErrNoChromium = errors.New("htmlcards: chromium is missing (scripts/setup.sh installs it)")

// ChromiumPath finds Debian's chromium, or the one TAMBUA_CHROMIUM names.
func ChromiumPath() (string, error) {
	for _, p := range []string{os.Getenv("TAMBUA_CHROMIUM"), "/usr/bin/chromium", "/usr/bin/chromium-browser"} {
		if p == "" {
			continue
		}
		if path, err := exec.LookPath(p); err == nil {
			return path, nil
		}
	}
	return "", ErrNoChromium
}

// browser is one headless Chromium with one tab that renders page after
// page: starting a browser costs about a second, a page tens of
// milliseconds.
type browser struct {
	mu     sync.Mutex // one page at a time in the tab
	ctx    context.Context
	cancel func()
	dir    string // the pages are written here and opened as files
}

func newBrowser(ctx context.Context) (*browser, error) {
	chrome, err := ChromiumPath()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "htmlcards-")
	if err != nil {
		return nil, err
	}
	// The flags of shared/testdata/README.md; font hinting and subpixel
	// positioning are left as Chromium's defaults for Linux.
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chrome), chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("headless", true), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("allow-file-access-from-files", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.WindowSize(1600, 1200),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.WithoutCancel(ctx), opts...)
	bctx, cancelB := chromedp.NewContext(actx)
	b := &browser{ctx: bctx, dir: dir, cancel: func() { cancelB(); cancelA(); os.RemoveAll(dir) }}
	// start it now, so a missing library fails here and not on a page
	if err := chromedp.Do(bctx, chromedp.Navigate("about:blank")); err != nil {
		b.cancel()
		return nil, fmt.Errorf("htmlcards: starting chromium: %w", err)
	}
	return b, nil
}

func (b *browser) close() { b.cancel() }

// pageResult is what a rendered page reports about itself.
type pageResult struct {
	Problems []string          `json:"problems"`
	Boxes    map[string]*box   `json:"boxes"`
	Captions map[string]string `json:"captions"`
}

// box is an element's rectangle in px.
type box struct{ X, Y, W, H float64 }

// render loads html at w x h px, waits for its fonts and images, runs the
// page's own fitting script, and returns the screenshot and the report.
func (b *browser) render(ctx context.Context, html string, w, h int) (*image.RGBA, *pageResult, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	path := filepath.Join(b.dir, "page.html")
	if err := os.WriteFile(path, []byte(html), 0o600); err != nil {
		return nil, nil, err
	}
	// the caller's cancellation stops the page, not the browser
	pctx, cancel := context.WithCancel(b.ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	if err := chromedp.Do(pctx,
		chromedp.EmulateViewport(int64(w), int64(h)),
		chromedp.Navigate("file://"+path),
	); err != nil {
		return nil, nil, fmt.Errorf("htmlcards: loading the page: %w", err)
	}
	res, err := chromedp.Run(pctx, chromedp.Evaluate[*pageResult](`window.settle()`, chromedp.EvalAwaitPromise))
	if err != nil {
		return nil, nil, fmt.Errorf("htmlcards: laying out the page: %w", err)
	}
	shot, err := chromedp.Run(pctx, chromedp.CaptureScreenshot())
	if err != nil {
		return nil, nil, fmt.Errorf("htmlcards: screenshot: %w", err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		return nil, nil, err
	}
	if img.Bounds().Dx() != w || img.Bounds().Dy() != h {
		return nil, nil, fmt.Errorf("htmlcards: screenshot is %v, want %dx%d", img.Bounds().Size(), w, h)
	}
	rgba := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(rgba, rgba.Bounds(), img, img.Bounds().Min, draw.Src)
	return rgba, res, nil
}
