package operator

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/telark/protectionplans/plan"
)

// TestCRDCopyIsInSync keeps the embedded CRD equal to the one generated
// from package plan (config/crd). Refresh the copy with
// `go generate ./operator/...` in examples/.
func TestCRDCopyIsInSync(t *testing.T) {
	orig, err := os.ReadFile(filepath.Join("..", "..", "..", "config", "crd", "telark.io_protectionplans.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(orig, crdYAML) {
		t.Fatal("examples/operator/operator/crd/telark.io_protectionplans.yaml differs from config/crd: run `go generate ./operator/...` in examples/")
	}
	crd, err := CRD()
	if err != nil {
		t.Fatal(err)
	}
	if crd.GetName() != plan.Resource+"."+plan.Group {
		t.Errorf("CRD name = %q", crd.GetName())
	}
}
