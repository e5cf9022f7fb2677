//go:build chromium

package report

// "A person must be able to look at it": this test opens the golden HTML
// report in headless Chromium, takes screenshots at a phone's width and a
// laptop's and prints it to PDF, and checks that the picture is not blank,
// fits the window, shows the timeline legibly, and shows a run without
// health checks grey, not green, in its health row. It
// needs a Chromium binary (Debian: apt-get install chromium), so it runs
// only with the build tag:
//
//	go test -tags chromium -run Screenshot -v ./report
//
// The PNG (and PDF) are written to a temporary directory and, when
// REPORT_SCREENSHOT_DIR is set, copied there to be looked at.

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/telark/protectionplans/internal/chromiumtest"
)

// The screenshots are taken at a phone's width (390 px, an iPhone's CSS
// width) and a laptop's (1280 px), without the window's scroll bars: a
// page wider than the window is then cut at its right edge.
const shotHeight = 2000

var shotWidths = []int{390, 1280}

// Colours of the page.
var (
	white       = color.RGBA{0xff, 0xff, 0xff, 0xff}
	activeBlue  = color.RGBA{0x09, 0x69, 0xda, 0xff}
	blockedRed  = color.RGBA{0xa4, 0x0e, 0x26, 0xff}
	healthGreen = color.RGBA{0xda, 0xfb, 0xe1, 0xff}
	notChecked  = color.RGBA{0xc4, 0xcb, 0xd3, 0xff}
)

// shoot writes page to dir and takes its screenshot width pixels wide.
func shoot(t *testing.T, bin, dir, name string, page []byte, width int) image.Image {
	t.Helper()
	file := filepath.Join(dir, name+".html")
	if err := os.WriteFile(file, page, 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, fmt.Sprintf("%s_%d.png", name, width))
	chromiumtest.Run(t, bin, "--hide-scrollbars", fmt.Sprintf("--window-size=%d,%d", width, shotHeight), "--screenshot="+shot, "file://"+file)
	img := chromiumtest.DecodePNG(t, shot)
	chromiumtest.Keep(t, "REPORT_SCREENSHOT_DIR", shot)
	if b := img.Bounds(); b.Dx() != width || b.Dy() != shotHeight {
		t.Fatalf("the screenshot is %dx%d, want %dx%d", b.Dx(), b.Dy(), width, shotHeight)
	}
	ink := nonWhite(img)
	t.Logf("non-white pixels: %.1f%%", 100*ink)
	if ink < 0.05 {
		t.Errorf("only %.1f%% of the screenshot is not white: the page looks blank", 100*ink)
	}
	return img
}

// checkFitsTheWindow fails when the page runs past the window's right
// edge: its margin there (16 px at phone width) must stay white. Wide
// tables scroll inside the page instead.
func checkFitsTheWindow(t *testing.T, img image.Image) {
	t.Helper()
	if n, y := chromiumtest.RightEdgeInk(img, 8, white); n > 0 {
		t.Errorf("%d pixels of content in the right-most 8 columns, the first at y=%d: the page is wider than the window and cut at its edge", n, y)
	}
}

// checkMarksLegible fails when fewer than two blocked marks are drawn 9
// px or more: the nightly run had blocked changes in both its active
// periods, which the picture (marks of 10 units, 10 px at 1280 px) or,
// at phone width, the list standing for it (a swatch of 10 px per period)
// shows. The picture shrunk to a phone's width drew them 3 px square,
// and its labels 4 px tall; only the legend's swatch stayed 10 px.
func checkMarksLegible(t *testing.T, img image.Image) {
	t.Helper()
	n := chromiumtest.Marks(img, blockedRed, 9)
	t.Logf("blocked marks of 9 px or more: %d", n)
	if n < 2 {
		t.Errorf("%d blocked marks are drawn 9 px or more, want at least 2 (one for each active period): the run is drawn too small to read", n)
	}
}

func TestScreenshot_NightlyRun(t *testing.T) {
	bin := chromiumtest.Find(t)
	dir := t.TempDir()
	golden, err := os.ReadFile(filepath.Join("testdata", "nightly_run.golden.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "nightly_run.html")
	if err := os.WriteFile(page, golden, 0o644); err != nil {
		t.Fatal(err)
	}

	for _, width := range shotWidths {
		t.Run(fmt.Sprintf("%d px", width), func(t *testing.T) {
			img := shoot(t, bin, dir, "nightly_run", golden, width)
			checkFitsTheWindow(t, img)
			checkMarksLegible(t, img)
			if width < 1280 {
				return
			}
			counts := countColours(img, map[string]color.RGBA{
				"active band (blue)":           activeBlue,
				"scheduled band (light blue)":  {0xdd, 0xf4, 0xff, 0xff},
				"blocked mark (dark red)":      blockedRed,
				"unhealthy bar (red)":          {0xcf, 0x22, 0x2e, 0xff},
				"healthy while active (green)": healthGreen,
			})
			minimum := map[string]int{
				"active band (blue)": 5000, "scheduled band (light blue)": 5000, "blocked mark (dark red)": 300,
				"unhealthy bar (red)": 40, "healthy while active (green)": 2000,
			}
			for _, name := range slices.Sorted(maps.Keys(counts)) {
				n := counts[name]
				t.Logf("%-30s %6d pixels", name, n)
				if n < minimum[name] {
					t.Errorf("%s: %d pixels, want at least %d: the timeline is not drawn as designed", name, n, minimum[name])
				}
			}
			// The unhealthy period is a red bar across the health row: a column
			// of red at least 15 pixels tall (text and borders are shorter).
			run := verticalRun(img, color.RGBA{0xcf, 0x22, 0x2e, 0xff})
			t.Logf("unhealthy bar: %d pixels tall", run)
			if run < 15 {
				t.Errorf("the longest vertical run of unhealthy red is %d pixels, want the health row's bar (15 or more)", run)
			}
		})
	}

	t.Run("print to PDF", func(t *testing.T) {
		pdf := filepath.Join(dir, "nightly_run.pdf")
		chromiumtest.Run(t, bin, "--no-pdf-header-footer", "--print-to-pdf="+pdf, "file://"+page)
		b, err := os.ReadFile(pdf)
		if err != nil {
			t.Fatal(err)
		}
		chromiumtest.Keep(t, "REPORT_SCREENSHOT_DIR", pdf)
		if !bytes.HasPrefix(b, []byte("%PDF-")) || len(b) < 10_000 {
			t.Fatalf("the PDF is %d bytes and starts %q", len(b), b[:min(len(b), 8)])
		}
		pages := bytes.Count(b, []byte("/Type /Page\n")) + bytes.Count(b, []byte("/Type /Page>>")) + bytes.Count(b, []byte("/Type /Page "))
		t.Logf("PDF: %d bytes, about %d pages", len(b), pages)
	})
}

// TestScreenshot_NoHealthChecks: the nightly run without a health check
// shows its health row grey (not checked), as its Health card says
// "Unknown", and not green: at 1280 px the row is a grey band about 21 px
// tall; at 390 px, where a list stands for the picture, each active
// period has a grey swatch (12 px) saying "health not checked".
func TestScreenshot_NoHealthChecks(t *testing.T) {
	bin := chromiumtest.Find(t)
	dir := t.TempDir()
	in := nightlyInput(t)
	in.Health = nil
	page := mustRender(t, mustBuild(t, in), HTML)
	for _, width := range shotWidths {
		t.Run(fmt.Sprintf("%d px", width), func(t *testing.T) {
			img := shoot(t, bin, dir, "no_health_checks", page, width)
			checkFitsTheWindow(t, img)
			grey, green := chromiumtest.LargestSquare(img, notChecked), chromiumtest.LargestSquare(img, healthGreen)
			t.Logf("largest grey (not checked) square: %d px, largest green (healthy) square: %d px", grey, green)
			if grey < 10 {
				t.Errorf("the largest square of not-checked grey is %d px, want the health row or its swatch (10 or more)", grey)
			}
			// The legend's green swatch is 12 px tall at 1280 px and
			// hidden at 390 px; the health row, were it green, 21 px.
			if green > 12 {
				t.Errorf("a square of healthy green %d px wide: the health row is drawn healthy without a health check", green)
			}
		})
	}
}

// countColours counts, for each named colour, the pixels within 6 of it on
// every channel.
func countColours(img image.Image, want map[string]color.RGBA) map[string]int {
	counts := make(map[string]int, len(want))
	for name := range want {
		counts[name] = 0
	}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			for name, w := range want {
				if near(c.R, w.R) && near(c.G, w.G) && near(c.B, w.B) {
					counts[name]++
				}
			}
		}
	}
	return counts
}

// verticalRun is the longest run of pixels of colour c in one column.
func verticalRun(img image.Image, c color.RGBA) int {
	b := img.Bounds()
	best := 0
	for x := b.Min.X; x < b.Max.X; x++ {
		run := 0
		for y := b.Min.Y; y < b.Max.Y; y++ {
			p := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			if near(p.R, c.R) && near(p.G, c.G) && near(p.B, c.B) {
				run++
				best = max(best, run)
			} else {
				run = 0
			}
		}
	}
	return best
}

func near(a, b uint8) bool { return int(a)-int(b) <= 6 && int(b)-int(a) <= 6 }

// nonWhite is the share of pixels that are not (nearly) white.
func nonWhite(img image.Image) float64 {
	b := img.Bounds()
	n := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			if c.R < 245 || c.G < 245 || c.B < 245 {
				n++
			}
		}
	}
	return float64(n) / float64(b.Dx()*b.Dy())
}
