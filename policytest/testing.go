package policytest

import (
	"io/fs"
	"testing"
)

// RunT runs the suite as subtests of t, one per case and target (and
// layout, when the suite has several): a failed check fails its subtest
// with what differs. A suite that cannot run fails t.
func RunT(t testing.TB, s Suite) {
	t.Helper()
	res, err := s.Run()
	if err != nil {
		t.Fatalf("%s: %v", s.Name, err)
	}
	layouts := len(s.Layouts) > 1
	for _, c := range res.Checks {
		name := c.Case + " [" + string(c.Target)
		if layouts {
			name += " " + string(c.Layout)
		}
		name += "]"
		check := func(t testing.TB) {
			t.Helper()
			if !c.Passed() {
				t.Errorf("%s at %s: %s", c.Request, c.At.Format("2006-01-02T15:04:05Z07:00"), c.Failure)
			}
		}
		if tt, ok := t.(*testing.T); ok {
			tt.Run(name, func(t *testing.T) { check(t) })
		} else {
			check(t)
		}
	}
}

// TestFiles loads the test files named (a directory: every test file
// under it, IsTestFile) from fsys and runs each as a subtest of t (RunT).
func TestFiles(t *testing.T, fsys fs.FS, names ...string) {
	t.Helper()
	for _, n := range names {
		st, err := fs.Stat(fsys, n)
		if err != nil {
			t.Fatal(err)
		}
		var suites []Suite
		if st.IsDir() {
			suites, err = LoadDir(fsys, n)
		} else {
			var s Suite
			s, err = Load(fsys, n)
			suites = append(suites, s)
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range suites {
			t.Run(s.Name, func(t *testing.T) { RunT(t, s) })
		}
	}
}
