//go:build chromium

package main

// "It must read well": this test serves the dashboard over the fixture
// (six plans in every phase) on 127.0.0.1, opens the list page and two
// plan pages in headless Chromium, takes screenshots and checks that each
// is a PNG of the window's size that is not blank and shows the page's
// colours (phase badges, the approve button, blocked violations). It
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
	"image"
	"image/color"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/telark/protectionplans/internal/chromiumtest"
)

const (
	shotWidth  = 1280
	shotHeight = 1600
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

	cases := []struct {
		name, path string
		colours    map[string]color.RGBA
		minimum    int
	}{
		{"plans", "/", map[string]color.RGBA{
			"active badge (green)":     {0xda, 0xfb, 0xe1, 0xff},
			"pending badge (amber)":    {0xff, 0xf8, 0xc5, 0xff},
			"scheduled badge (blue)":   {0xdd, 0xf4, 0xff, 0xff},
			"header bar (dark)":        {0x24, 0x29, 0x2f, 0xff},
			"enforce mode (purple bg)": {0xfb, 0xef, 0xff, 0xff},
		}, 400},
		{"plan_pending", "/plans/production-release", map[string]color.RGBA{
			"approve button (green)": {0x1a, 0x7f, 0x37, 0xff},
			"reject button (red)":    {0xcf, 0x22, 0x2e, 0xff},
			"pending badge (amber)":  {0xff, 0xf8, 0xc5, 0xff},
		}, 300},
		{"plan_active", "/plans/black-friday", map[string]color.RGBA{
			"active badge (green)":   {0xda, 0xfb, 0xe1, 0xff},
			"blocked decision (red)": {0xff, 0xeb, 0xe9, 0xff},
			"timeline dots (blue)":   {0x09, 0x69, 0xda, 0xff},
		}, 150},
	}
	dir := t.TempDir()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			shot := filepath.Join(dir, "dashboard_"+tc.name+".png")
			chromiumtest.Run(t, bin, "--window-size=1280,1600", "--screenshot="+shot, ts.URL+tc.path)
			img := chromiumtest.DecodePNG(t, shot)
			chromiumtest.Keep(t, "DASHBOARD_SCREENSHOT_DIR", shot)
			if b := img.Bounds(); b.Dx() != shotWidth || b.Dy() != shotHeight {
				t.Fatalf("the screenshot is %dx%d, want %dx%d", b.Dx(), b.Dy(), shotWidth, shotHeight)
			}
			ink := nonWhite(img)
			t.Logf("non-white pixels: %.1f%%", 100*ink)
			if ink < 0.05 {
				t.Errorf("only %.1f%% of the screenshot is not white: the page looks blank", 100*ink)
			}
			for name, c := range tc.colours {
				n := countColour(img, c)
				t.Logf("%-28s %6d pixels", name, n)
				if n < tc.minimum {
					t.Errorf("%s: %d pixels, want at least %d: the page is not drawn as designed", name, n, tc.minimum)
				}
			}
		})
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
