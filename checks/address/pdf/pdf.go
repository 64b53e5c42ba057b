// Package pdf inspects and reads PDF documents with poppler's tools
// (Debian poppler-utils), each run as a separate process bounded in time
// and memory, so a hostile file cannot take the server down with it. It
// registers nothing: the server imports it to refuse an unreadable PDF
// before anything is stored and to draw a PDF's first page for the review
// console, and the address check to read one.
package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Limits bound a PDF and the tools that read it.
type Limits struct {
	// Bytes is the largest PDF accepted.
	Bytes int
	// Pages is the most pages a PDF may have.
	Pages int
	// ToolTime bounds each run of a tool.
	ToolTime time.Duration
	// ToolMemory bounds each tool's address space, in bytes.
	ToolMemory int64
}

// DefaultLimits: a bank statement of a few months, read in bounded time.
var DefaultLimits = Limits{Bytes: 10 << 20, Pages: 30, ToolTime: 10 * time.Second, ToolMemory: 1 << 30}

// Errors of inspection, each a reason the document cannot be read.
var (
	ErrEncrypted = errors.New("the PDF is encrypted")
	ErrTooLarge  = errors.New("the PDF is too large")
	ErrMalformed = errors.New("the PDF cannot be read")
)

// Is reports whether data starts as a PDF does.
func Is(data []byte) bool { return bytes.HasPrefix(data, []byte("%PDF-")) }

var (
	pagesRe     = regexp.MustCompile(`(?m)^Pages:\s+(\d+)`)
	encryptedRe = regexp.MustCompile(`(?m)^Encrypted:\s+yes`)
)

// Pages inspects the PDF in file (pdfinfo) and returns its page count:
// ErrEncrypted, ErrMalformed, or ErrTooLarge over lim.Pages.
func Pages(ctx context.Context, lim Limits, file string) (int, error) {
	info, err := Tool(ctx, lim, "pdfinfo", file)
	if err != nil {
		if encryptedRe.Match(info) || bytes.Contains(info, []byte("Incorrect password")) {
			return 0, ErrEncrypted
		}
		return 0, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if encryptedRe.Match(info) {
		return 0, ErrEncrypted
	}
	m := pagesRe.FindSubmatch(info)
	if m == nil {
		return 0, fmt.Errorf("%w: no page count", ErrMalformed)
	}
	pages, _ := strconv.Atoi(string(m[1]))
	if pages < 1 || pages > lim.Pages {
		return 0, fmt.Errorf("%w: %d pages, at most %d", ErrTooLarge, pages, lim.Pages)
	}
	return pages, nil
}

// Check inspects a PDF held in memory: its size against lim.Bytes, then
// Pages on a private copy.
func Check(ctx context.Context, lim Limits, data []byte) (int, error) {
	if len(data) > lim.Bytes {
		return 0, fmt.Errorf("%w: %d bytes, at most %d", ErrTooLarge, len(data), lim.Bytes)
	}
	dir, err := os.MkdirTemp("", "tambua-pdf-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "doc.pdf")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		return 0, err
	}
	return Pages(ctx, lim, file)
}

// Tool runs one of poppler's tools within lim (prlimit bounds its memory
// and CPU where util-linux is installed) and returns its output; on
// failure the output holds stderr too.
func Tool(ctx context.Context, lim Limits, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, lim.ToolTime)
	defer cancel()
	path, err := exec.LookPath(name)
	if err != nil {
		return nil, fmt.Errorf("%s is not installed (Debian poppler-utils; make setup installs it): %w", name, err)
	}
	argv := append([]string{path}, args...)
	if pl, err := exec.LookPath("prlimit"); err == nil {
		argv = append([]string{pl, "--as=" + strconv.FormatInt(lim.ToolMemory, 10),
			"--cpu=" + strconv.Itoa(int(lim.ToolTime.Seconds())+1), "--"}, argv...)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return stderr.Bytes(), fmt.Errorf("%s took longer than %s", name, lim.ToolTime)
		}
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 200 {
			msg = msg[:200]
		}
		return append(stdout.Bytes(), stderr.Bytes()...), fmt.Errorf("%s: %v: %s", name, err, msg)
	}
	return stdout.Bytes(), nil
}

// Renderable reports whether this machine has the tool FirstPage needs,
// so a page can offer a preview only where one can be drawn.
func Renderable() bool {
	_, err := exec.LookPath("pdftoppm")
	return err == nil
}

// FirstPage draws the first page of the PDF in data as a colour PNG whose
// longer side is side pixels (pdftoppm within lim): a preview a person
// reads, as the console's review page shows a statement next to the ID.
// An unreadable PDF is ErrMalformed, one over lim.Bytes ErrTooLarge.
func FirstPage(ctx context.Context, lim Limits, data []byte, side int) ([]byte, error) {
	if len(data) > lim.Bytes {
		return nil, fmt.Errorf("%w: %d bytes, at most %d", ErrTooLarge, len(data), lim.Bytes)
	}
	dir, err := os.MkdirTemp("", "tambua-pdf-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "doc.pdf")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		return nil, err
	}
	if _, err := Tool(ctx, lim, "pdftoppm", "-f", "1", "-l", "1", "-singlefile", "-png", "-scale-to", strconv.Itoa(side),
		file, filepath.Join(dir, "page")); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	out, err := os.ReadFile(filepath.Join(dir, "page.png"))
	if err != nil {
		return nil, fmt.Errorf("%w: no page image", ErrMalformed)
	}
	return out, nil
}
