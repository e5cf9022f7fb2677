// Package chromiumtest runs headless Chromium for the screenshot tests of
// the HTML report and the dashboard, so that a person-readable page is
// checked as a person would see it. It is test support: only tests behind
// the build tag chromium use it.
package chromiumtest

import (
	"context"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// Find returns the browser: $CHROMIUM, or chromium, chromium-browser or
// google-chrome on PATH. It fails the test when there is none.
func Find(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("no Chromium found (apt-get install chromium, or set CHROMIUM)")
	return ""
}

// Run runs headless Chromium with args, a fresh profile and none of its
// network services (this machine's closed network refuses them, many at a
// time, and they slow every start).
func Run(t testing.TB, bin string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	profile := t.TempDir()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + profile}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+profile)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, out)
	}
}

// DecodePNG reads the screenshot at path.
func DecodePNG(t testing.TB, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("the screenshot is not a PNG: %v", err)
	}
	return img
}

// Keep copies the file at path into the directory named by the
// environment variable envDir, when it is set, so that a person can look
// at what the test saw.
func Keep(t testing.TB, envDir, path string) {
	t.Helper()
	dir := os.Getenv(envDir)
	if dir == "" {
		return
	}
	b, err := os.ReadFile(path)
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	dst := filepath.Join(dir, filepath.Base(path))
	if err == nil {
		err = os.WriteFile(dst, b, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("kept %s", dst)
}

// Near is true when c is within 6 of want on every channel (anti-aliasing
// and colour management move a flat colour by a step or two).
func Near(c color.Color, want color.RGBA) bool {
	r, g, b, _ := c.RGBA()
	d := func(v uint32, w uint8) bool { x := int(v>>8) - int(w); return x >= -6 && x <= 6 }
	return d(r, want.R) && d(g, want.G) && d(b, want.B)
}

// LargestSquare is the side, in pixels, of the largest square of the
// screenshot all of colour c: how big a band or a swatch is drawn.
func LargestSquare(img image.Image, c color.RGBA) int {
	side, _ := squares(img, c)
	return side
}

// Marks counts the separate marks of colour c (pixels of c touching side
// by side) that hold a square of side pixels or more: the marks a person
// can see and tell apart. A picture shrunk to a phone's width draws its
// marks of 10 px in 3, and they no longer count.
func Marks(img image.Image, c color.RGBA, side int) int {
	_, sq := squares(img, c)
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	seen := make([]bool, w*h)
	n := 0
	var stack []int
	for start := range sq {
		if sq[start] == 0 || seen[start] {
			continue
		}
		big := false
		seen[start] = true
		stack = append(stack[:0], start)
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			big = big || sq[i] >= side
			x, y := i%w, i/w
			visit := func(ok bool, j int) {
				if ok && sq[j] > 0 && !seen[j] {
					seen[j] = true
					stack = append(stack, j)
				}
			}
			visit(x > 0, i-1)
			visit(x < w-1, i+1)
			visit(y > 0, i-w)
			visit(y < h-1, i+w)
		}
		if big {
			n++
		}
	}
	return n
}

// squares gives, for each pixel of colour c, the side of the largest
// square of c ending there (bottom right), 0 for other pixels, and the
// largest side.
func squares(img image.Image, c color.RGBA) (best int, sq []int) {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	sq = make([]int, w*h)
	for y := range h {
		for x := range w {
			if !Near(img.At(b.Min.X+x, b.Min.Y+y), c) {
				continue
			}
			v := 1
			if x > 0 && y > 0 {
				v = 1 + min(sq[(y-1)*w+x], sq[y*w+x-1], sq[(y-1)*w+x-1])
			}
			sq[y*w+x] = v
			best = max(best, v)
		}
	}
	return best, sq
}

// RightEdgeInk counts the pixels of the screenshot's right-most cols
// columns that are none of the page's background colours, and says the
// first row that has one (-1 when none). A page laid out for the window
// leaves its margin there; a page wider than the window is cut there, its
// tables' text and borders running into the edge. Take the screenshot
// with --hide-scrollbars, or the window's scroll bar is counted.
func RightEdgeInk(img image.Image, cols int, background ...color.RGBA) (n, firstRow int) {
	b := img.Bounds()
	firstRow = -1
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Max.X - cols; x < b.Max.X; x++ {
			p := img.At(x, y)
			if slices.ContainsFunc(background, func(c color.RGBA) bool { return Near(p, c) }) {
				continue
			}
			n++
			if firstRow < 0 {
				firstRow = y
			}
		}
	}
	return n, firstRow
}
