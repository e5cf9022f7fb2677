package plan

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// generated are the files controller-gen writes, relative to the module
// root.
var generated = []string{
	"plan/zz_generated.deepcopy.go",
	"window/zz_generated.deepcopy.go",
	"edge/zz_generated.deepcopy.go",
	"config/crd/telark.io_protectionplans.yaml",
}

// TestGeneratedFilesAreFresh runs the //go:generate lines of generate.go
// (the pinned controller-gen) on a copy of the sources in a temporary
// directory and compares the output with the committed files byte for
// byte. It needs the go tool and the module cache (or the module proxy),
// so -short skips it.
func TestGeneratedFilesAreFresh(t *testing.T) {
	if testing.Short() {
		t.Skip("runs controller-gen; skipped with -short")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go tool is not on PATH")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	copyTree(t, root, tmp)
	for _, args := range generateLines(t, filepath.Join(root, "plan", "generate.go")) {
		cmd := exec.Command(goTool, args[1:]...)
		cmd.Dir = filepath.Join(tmp, "plan")
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	for _, rel := range generated {
		committed := readFile(t, filepath.Join(root, rel))
		fresh := readFile(t, filepath.Join(tmp, rel))
		if committed != fresh {
			t.Errorf("%s is stale: run go generate ./plan/ (-committed +generated):\n%s", rel, cmp.Diff(committed, fresh))
		}
	}
	crds, _ := filepath.Glob(filepath.Join(tmp, "config", "crd", "*.yaml"))
	if len(crds) != 1 {
		t.Errorf("controller-gen wrote %d CRDs, want 1: %v", len(crds), crds)
	}
}

// generateLines returns the commands of the //go:generate lines of path.
func generateLines(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cmds [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "//go:generate "); ok {
			cmds = append(cmds, strings.Fields(rest))
		}
	}
	if len(cmds) == 0 || cmds[0][0] != "go" {
		t.Fatalf("no go:generate lines running go in %s", path)
	}
	return cmds
}

// copyTree copies what controller-gen reads: go.mod, go.sum and the
// non-test Go files of plan and window. The CRD directory starts empty so
// that every file in it is freshly generated.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	for _, name := range []string{"go.mod", "go.sum"} {
		writeFile(t, filepath.Join(to, name), readFile(t, filepath.Join(from, name)))
	}
	for _, dir := range []string{"plan", "window", "edge"} {
		files, err := filepath.Glob(filepath.Join(from, dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if !strings.HasSuffix(f, "_test.go") {
				writeFile(t, filepath.Join(to, dir, filepath.Base(f)), readFile(t, f))
			}
		}
	}
	if err := os.MkdirAll(filepath.Join(to, "config", "crd"), 0o755); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// crdDoc is the part of the generated CRD the golden test asserts.
type crdDoc struct {
	Spec struct {
		Group string `json:"group"`
		Scope string `json:"scope"`
		Names struct {
			Kind       string   `json:"kind"`
			Plural     string   `json:"plural"`
			ShortNames []string `json:"shortNames"`
		} `json:"names"`
		Versions []struct {
			Name                     string `json:"name"`
			Served                   bool   `json:"served"`
			Storage                  bool   `json:"storage"`
			AdditionalPrinterColumns []struct {
				Name     string `json:"name"`
				Type     string `json:"type"`
				JSONPath string `json:"jsonPath"`
			} `json:"additionalPrinterColumns"`
			Subresources map[string]any `json:"subresources"`
			Schema       struct {
				OpenAPIV3Schema struct {
					Properties struct {
						Spec struct {
							Properties map[string]struct {
								Enum []string `json:"enum"`
							} `json:"properties"`
							Required []string `json:"required"`
						} `json:"spec"`
					} `json:"properties"`
				} `json:"openAPIV3Schema"`
			} `json:"schema"`
		} `json:"versions"`
	} `json:"spec"`
}

func TestCRD_NamesScopeVersionAndPrinterColumns(t *testing.T) {
	var doc crdDoc
	if err := yaml.Unmarshal([]byte(readFile(t, "../config/crd/telark.io_protectionplans.yaml")), &doc); err != nil {
		t.Fatal(err)
	}
	s := doc.Spec
	if s.Group != "telark.io" || s.Scope != "Cluster" || s.Names.Kind != "ProtectionPlan" || s.Names.Plural != "protectionplans" {
		t.Errorf("group %q scope %q kind %q plural %q", s.Group, s.Scope, s.Names.Kind, s.Names.Plural)
	}
	if len(s.Versions) != 1 {
		t.Fatalf("versions = %d, want 1", len(s.Versions))
	}
	v := s.Versions[0]
	if v.Name != "v1alpha1" || !v.Served || !v.Storage {
		t.Errorf("version %q served %v storage %v", v.Name, v.Served, v.Storage)
	}
	var cols []string
	for _, c := range v.AdditionalPrinterColumns {
		cols = append(cols, c.Name+" "+c.Type+" "+c.JSONPath)
	}
	want := []string{
		"Title string .spec.name",
		"Phase string .status.phase",
		"Mode string .spec.mode",
		"Window string .status.window",
		`Enforced string .status.conditions[?(@.type=="EnforcementVerified")].status`,
		"Age date .metadata.creationTimestamp",
	}
	if diff := cmp.Diff(want, cols); diff != "" {
		t.Errorf("printer columns (-want +got):\n%s", diff)
	}
	if _, ok := v.Subresources["status"]; !ok {
		t.Errorf("the status subresource is missing")
	}
	props := v.Schema.OpenAPIV3Schema.Properties.Spec.Properties
	if got := props["mode"].Enum; !cmp.Equal(got, []string{"audit", "enforce"}) {
		t.Errorf("spec.mode enum = %v", got)
	}
	if got := props["approvalMode"].Enum; !cmp.Equal(got, []string{"automatic", "required"}) {
		t.Errorf("spec.approvalMode enum = %v", got)
	}
}
