package operator

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

func TestWriteFileAtomic_LeavesNoTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "plan", "ledger.json")
	for _, content := range []string{"one", "two"} {
		if err := writeFileAtomic(p, []byte(content)); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(p); string(got) != content {
			t.Errorf("content = %q, want %q", got, content)
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only the file", len(entries))
	}
}

func TestStore_RefusesPlanIDsThatAreNotOnePathElement(t *testing.T) {
	s := &store{dir: t.TempDir()}
	for _, id := range []string{"", ".", "..", "a/b", `a\b`} {
		if _, err := s.planDir(id); err == nil {
			t.Errorf("planDir(%q) accepted", id)
		}
	}
}

func TestStore_SweepDeletesReportsOfDeletedAndRecreatedPlans(t *testing.T) {
	s := &store{dir: t.TempDir()}
	for id, uid := range map[string]types.UID{"kept": "u1", "deleted": "u2", "recreated": "old"} {
		if err := s.saveObserved(id, observed{UID: uid}); err != nil {
			t.Fatal(err)
		}
	}
	removed, err := s.sweep(map[string]types.UID{"kept": "u1", "recreated": "new"})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal([]byte(join(removed)), []byte("deleted,recreated")) {
		t.Errorf("removed = %v, want deleted and recreated", removed)
	}
	if _, err := os.Stat(filepath.Join(s.dir, "kept", ObservedFile)); err != nil {
		t.Errorf("the existing plan's directory was touched: %v", err)
	}
}

func join(ss []string) string {
	out := ""
	for i, s := range ss {
		if i > 0 {
			out += ","
		}
		out += s
	}
	return out
}
