package install

import (
	"bytes"
	"debug/buildinfo"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

const dockerfile = "../../Dockerfile"

// TestDockerfileStages: each image stage is distroless static and runs as
// a numeric user that is not root (runAsNonRoot can check only numbers).
func TestDockerfileStages(t *testing.T) {
	b, err := os.ReadFile(dockerfile)
	if err != nil {
		t.Fatal(err)
	}
	stages := regexp.MustCompile(`(?m)^FROM (\S+) AS (\S+)$`).FindAllStringSubmatchIndex(string(b), -1)
	seen := map[string]bool{}
	for i, m := range stages {
		base, name := string(b[m[2]:m[3]]), string(b[m[4]:m[5]])
		end := len(b)
		if i+1 < len(stages) {
			end = stages[i+1][0]
		}
		body := string(b[m[1]:end])
		if name == "build" {
			continue
		}
		seen[name] = true
		if !strings.HasPrefix(base, "gcr.io/distroless/static") {
			t.Errorf("stage %s: base %s, want distroless static (no libc, no shell)", name, base)
		}
		u := regexp.MustCompile(`(?m)^USER (\d+):(\d+)$`).FindStringSubmatch(body)
		if u == nil {
			t.Errorf("stage %s: no numeric USER uid:gid", name)
			continue
		}
		if uid, _ := strconv.Atoi(u[1]); uid == 0 {
			t.Errorf("stage %s: USER is root", name)
		}
	}
	if !seen["operator"] || !seen["server"] {
		t.Errorf("image stages %v, want operator and server", seen)
	}
}

// TestDockerfileBuild runs the recipe's go build line as the image build
// would (for this machine's architecture, outputs in a temporary
// directory) and checks the binaries: static (no ELF interpreter, no
// dynamic section), built with CGO_ENABLED=0, carrying the zone database,
// and answering --version. No image is built: there is no container
// engine here.
func TestDockerfileBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds both binaries; skipped with -short")
	}
	if runtime.GOOS != "linux" {
		t.Skip("the recipe builds linux binaries")
	}
	b, err := os.ReadFile(dockerfile)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^RUN (cd examples && CGO_ENABLED=0 .*go build .*)$`).FindStringSubmatch(string(b))
	if m == nil {
		t.Fatal("no RUN line with go build in the Dockerfile")
	}
	out := t.TempDir()
	line := strings.NewReplacer("$TARGETOS", runtime.GOOS, "$TARGETARCH", runtime.GOARCH, "/out/", out+"/").Replace(m[1])
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(os.Environ(), "GOFLAGS=-buildvcs=false")
	if o, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", line, err, o)
	}
	for _, name := range []string{"operator", "server"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(out, name)
			f, err := elf.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			for _, p := range f.Progs {
				if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
					t.Errorf("%s has a %s program header: not static", name, p.Type)
				}
			}
			if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
				t.Errorf("%s needs %v", name, libs)
			}
			bi, err := buildinfo.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			cgo := ""
			for _, s := range bi.Settings {
				if s.Key == "CGO_ENABLED" {
					cgo = s.Value
				}
			}
			if cgo != "0" {
				t.Errorf("%s built with CGO_ENABLED=%q", name, cgo)
			}
			bin, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			// A name only the zone database's zip holds.
			if !bytes.Contains(bin, []byte("America/Argentina/ComodRivadavia")) {
				t.Errorf("%s does not embed the zone database (time/tzdata)", name)
			}
			v, err := exec.Command(path, "--version").Output()
			if err != nil || !strings.Contains(string(v), "library") {
				t.Errorf("%s --version: %q, %v", name, v, err)
			}
		})
	}
}
