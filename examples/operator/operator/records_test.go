package operator

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/examples/internal/store"
	"github.com/telark/protectionplans/plan"
)

// TestRecordsAreKeptBetweenPasses: a steady pass takes each plan's record
// from memory, as this process last wrote it, and reads no file: with the
// file gone from under it, the pass neither notices nor writes it again.
func TestRecordsAreKeptBetweenPasses(t *testing.T) {
	f := newFixture(t, []client.Object{namespace("shop"), kubectlPlan("freeze", plan.ModeEnforce, []string{"shop"}, "scaling")})
	f.pass()
	f.pass()
	path := filepath.Join(f.dir, "freeze", store.ObservedFile)
	for _, p := range []string{path, path + store.BackupSuffix} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
	}
	if w := f.pass(); len(w) != 0 {
		t.Errorf("writes = %q, want none", w)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the record was written again (%v): the pass read it from disk, not from memory", err)
	}
}
