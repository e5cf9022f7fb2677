//go:build chromium

package main

// "It must read well": this test serves the dashboard over the fixture
// (six plans in every phase) on 127.0.0.1, opens the list page and two
// plan pages in headless Chromium, takes screenshots at a phone's width
// and a laptop's and checks that each is a PNG of the window's size that
// is not blank, fits the window (nothing cut at its right edge) and shows
// the page's colours (phase badges, the approve button, blocked
// violations; at phone width, every column of the plans list). It
// needs a Chromium binary (Debian: apt-get install chromium), so it runs
// only with the build tag:
//
//	go test -tags chromium -run Screenshot -v ./server/
//
// Chromium cannot send the proxy's identity headers, so the test server
// adds them (as the authenticating proxy would). The PNGs are written to
// a temporary directory and, when DASHBOARD_SCREENSHOT_DIR is set, copied
// there to be looked at.

import (
	"fmt"
	"image"
	"image/color"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"testing"

	"github.com/telark/protectionplans/internal/chromiumtest"
)

// The screenshots are taken at a phone's width (390 px, an iPhone's CSS
// width) and a laptop's (1280 px), without the window's scroll bars: a
// page wider than the window is then cut at its right edge.
var shots = []struct{ width, height int }{{390, 2400}, {1280, 1600}}

// phoneMinimum is the pixels each colour of a case's phone list must
// have at 390 px: the health mark's green text of the one healthy plan
// has about 350 when its column shows, 85 when only its edge does.
const phoneMinimum = 150

// The page's background and its header bar, the colours of the margin
// right of the content.
var (
	pageBackground = color.RGBA{0xf6, 0xf8, 0xfa, 0xff}
	headerBar      = color.RGBA{0x24, 0x29, 0x2f, 0xff}
)

func TestScreenshot_Dashboard(t *testing.T) {
	bin := chromiumtest.Find(t)
	e := newEnv(t)
	asUser := func(user string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r.Header.Set(HeaderSecret, testSecret)
			r.Header.Set(HeaderUser, user)
			e.server.ServeHTTP(w, r)
		})
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(asUser("alice"))
	ts.Listener.Close()
	ts.Listener = ln
	ts.Start()
	defer ts.Close()

	// The colours each page must show at both widths: on the plans list,
	// those of its Phase and Mode columns and, at 390 px, where each plan
	// is a card with every column, those of the last, Health and
	// Categories (the environment chip and the health mark).
	cases := []struct {
		name, path string
		colours    map[string]color.RGBA
		minimum    int
		phone      map[string]color.RGBA
	}{
		{"plans", "/", map[string]color.RGBA{
			"active badge (green)":     {0xda, 0xfb, 0xe1, 0xff},
			"pending badge (amber)":    {0xff, 0xf8, 0xc5, 0xff},
			"scheduled badge (blue)":   {0xdd, 0xf4, 0xff, 0xff},
			"header bar (dark)":        headerBar,
			"enforce mode (purple bg)": {0xfb, 0xef, 0xff, 0xff},
		}, 400, map[string]color.RGBA{
			"healthy mark (green text)": {0x1a, 0x7f, 0x37, 0xff},
			"chip border (blue)":        {0xb6, 0xe3, 0xff, 0xff},
		}},
		{"plan_pending", "/plans/production-release", map[string]color.RGBA{
			"approve button (green)": {0x1a, 0x7f, 0x37, 0xff},
			"reject button (red)":    {0xcf, 0x22, 0x2e, 0xff},
			"pending badge (amber)":  {0xff, 0xf8, 0xc5, 0xff},
		}, 300, nil},
		{"plan_active", "/plans/black-friday", map[string]color.RGBA{
			"active badge (green)":   {0xda, 0xfb, 0xe1, 0xff},
			"blocked decision (red)": {0xff, 0xeb, 0xe9, 0xff},
			"timeline dots (blue)":   {0x09, 0x69, 0xda, 0xff},
		}, 150, nil},
	}
	dir := t.TempDir()
	for _, size := range shots {
		for _, tc := range cases {
			t.Run(fmt.Sprintf("%s %d px", tc.name, size.width), func(t *testing.T) {
				shot := filepath.Join(dir, fmt.Sprintf("dashboard_%s_%d.png", tc.name, size.width))
				chromiumtest.Run(t, bin, "--hide-scrollbars", fmt.Sprintf("--window-size=%d,%d", size.width, size.height), "--screenshot="+shot, ts.URL+tc.path)
				img := chromiumtest.DecodePNG(t, shot)
				chromiumtest.Keep(t, "DASHBOARD_SCREENSHOT_DIR", shot)
				if b := img.Bounds(); b.Dx() != size.width || b.Dy() != size.height {
					t.Fatalf("the screenshot is %dx%d, want %dx%d", b.Dx(), b.Dy(), size.width, size.height)
				}
				ink := nonWhite(img)
				t.Logf("non-white pixels: %.1f%%", 100*ink)
				if ink < 0.05 {
					t.Errorf("only %.1f%% of the screenshot is not white: the page looks blank", 100*ink)
				}
				// The page's margin (12 px at phone width) must stay
				// background: a table wider than the window runs into
				// the edge and is cut there. Wide tables scroll inside
				// the page instead, or stack.
				if n, y := chromiumtest.RightEdgeInk(img, 8, pageBackground, headerBar); n > 0 {
					t.Errorf("%d pixels of content in the right-most 8 columns, the first at y=%d: the page is wider than the window and cut at its edge", n, y)
				}
				minimum := map[string]int{}
				for name := range tc.colours {
					minimum[name] = tc.minimum
				}
				if size.width < 1280 {
					for name := range tc.phone {
						minimum[name] = phoneMinimum
					}
				}
				for _, name := range slices.Sorted(maps.Keys(minimum)) {
					c, ok := tc.colours[name]
					if !ok {
						c = tc.phone[name]
					}
					n := countColour(img, c)
					t.Logf("%-28s %6d pixels", name, n)
					if n < minimum[name] {
						t.Errorf("%s: %d pixels, want at least %d: the page is not drawn as designed", name, n, minimum[name])
					}
				}
			})
		}
	}
}

// countColour counts pixels within a small distance of c.
func countColour(img image.Image, c color.RGBA) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if near(r>>8, c.R) && near(g>>8, c.G) && near(bl>>8, c.B) {
				n++
			}
		}
	}
	return n
}

func near(v uint32, want uint8) bool {
	d := int(v) - int(want)
	return d >= -6 && d <= 6
}

// nonWhite is the fraction of pixels that are not (nearly) white.
func nonWhite(img image.Image) float64 {
	b := img.Bounds()
	n := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r>>8 < 0xf0 || g>>8 < 0xf0 || bl>>8 < 0xf0 {
				n++
			}
		}
	}
	return float64(n) / float64(b.Dx()*b.Dy())
}
