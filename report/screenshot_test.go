//go:build chromium

package report

// "A person must be able to look at it": this test opens the golden HTML
// report in headless Chromium, takes a screenshot and prints it to PDF,
// and checks that the picture is not blank and shows the timeline. It
// needs a Chromium binary (Debian: apt-get install chromium), so it runs
// only with the build tag:
//
//	go test -tags chromium -run Screenshot -v ./report
//
// The PNG (and PDF) are written to a temporary directory and, when
// REPORT_SCREENSHOT_DIR is set, copied there to be looked at.

import (
	"bytes"
	"image"
	"image/color"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/telark/protectionplans/internal/chromiumtest"
)

const (
	shotWidth  = 1280
	shotHeight = 2000
)

func TestScreenshot_NightlyRun(t *testing.T) {
	bin := chromiumtest.Find(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "nightly_run.html")
	golden, err := os.ReadFile(filepath.Join("testdata", "nightly_run.golden.html"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, golden, 0o644); err != nil {
		t.Fatal(err)
	}

	t.Run("screenshot", func(t *testing.T) {
		shot := filepath.Join(dir, "nightly_run.png")
		chromiumtest.Run(t, bin, "--window-size=1280,2000", "--screenshot="+shot, "file://"+page)
		img := chromiumtest.DecodePNG(t, shot)
		chromiumtest.Keep(t, "REPORT_SCREENSHOT_DIR", shot)
		if b := img.Bounds(); b.Dx() != shotWidth || b.Dy() != shotHeight {
			t.Fatalf("the screenshot is %dx%d, want %dx%d", b.Dx(), b.Dy(), shotWidth, shotHeight)
		}
		counts := countColours(img, map[string]color.RGBA{
			"active band (blue)":           {0x09, 0x69, 0xda, 0xff},
			"scheduled band (light blue)":  {0xdd, 0xf4, 0xff, 0xff},
			"blocked mark (dark red)":      {0xa4, 0x0e, 0x26, 0xff},
			"unhealthy bar (red)":          {0xcf, 0x22, 0x2e, 0xff},
			"healthy while active (green)": {0xda, 0xfb, 0xe1, 0xff},
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
		ink := nonWhite(img)
		t.Logf("non-white pixels: %.1f%%", 100*ink)
		if ink < 0.05 {
			t.Errorf("only %.1f%% of the screenshot is not white: the page looks blank", 100*ink)
		}
	})

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
