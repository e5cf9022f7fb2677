// Package chromiumtest runs headless Chromium for the screenshot tests of
// the HTML report and the dashboard, so that a person-readable page is
// checked as a person would see it. It is test support: only tests behind
// the build tag chromium use it.
package chromiumtest

import (
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
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
