package operator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/telark/protectionplans/report"
	"github.com/telark/protectionplans/violations"
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

func TestStore_SaveKeepsThePreviousGeneration(t *testing.T) {
	s := &store{dir: t.TempDir()}
	for _, v := range []string{"one", "two", "three"} {
		if err := writeJSON(s, "plan", ObservedFile, observed{UID: types.UID(v)}); err != nil {
			t.Fatal(err)
		}
	}
	var cur, prev observed
	if _, err := readJSON(s, "plan", ObservedFile, &cur); err != nil || cur.UID != "three" {
		t.Errorf("current = %+v, %v; want three", cur, err)
	}
	data, _ := os.ReadFile(filepath.Join(s.dir, "plan", ObservedFile+BackupSuffix))
	if err := json.Unmarshal(data, &prev); err != nil || prev.UID != "two" {
		t.Errorf("previous generation = %+v, %v; want two", prev, err)
	}
	entries, _ := os.ReadDir(filepath.Join(s.dir, "plan"))
	if len(entries) != 2 {
		t.Errorf("the plan's directory holds %d entries, want the file and its previous generation", len(entries))
	}
}

func TestStore_LoadRecoversFromThePreviousGeneration(t *testing.T) {
	ledgerOf := func(keys ...string) []byte {
		l := violations.NewLedger("plan")
		var vs []violations.Violation
		for _, k := range keys {
			vs = append(vs, violations.Violation{Key: k, Plan: "plan", Policy: "p", Rule: k})
		}
		data, err := l.Merge(vs).MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	good, newer := ledgerOf("a"), ledgerOf("a", "b")
	future := []byte(`{"version": 99, "plan": "plan"}`)
	tests := []struct {
		name          string
		file, backup  []byte // nil: absent
		wantKeys      []string
		wantRecovered bool
		wantErr       any // a pointer to the error type errors.As must find
	}{
		{name: "a valid ledger is read as is", file: newer, backup: good, wantKeys: []string{"a", "b"}},
		{name: "a ledger truncated mid-file is replaced by its previous generation", file: newer[:len(newer)/2], backup: good, wantKeys: []string{"a"}, wantRecovered: true},
		{name: "an empty ledger file (a write lost to a crash) is replaced by its previous generation", file: []byte{}, backup: good, wantKeys: []string{"a"}, wantRecovered: true},
		{name: "a ledger that is not JSON is replaced by its previous generation", file: []byte("\x00\x00\x00"), backup: good, wantKeys: []string{"a"}, wantRecovered: true},
		{name: "a missing ledger with a previous generation is restored", backup: good, wantKeys: []string{"a"}, wantRecovered: true},
		{name: "a new plan has an empty ledger", wantKeys: nil},
		{name: "a truncated ledger without a previous generation is a DecodeError", file: newer[:10], wantErr: new(*violations.DecodeError)},
		{name: "a truncated ledger whose previous generation is truncated too is a DecodeError", file: newer[:10], backup: good[:10], wantErr: new(*violations.DecodeError)},
		{name: "a ledger of a newer version is never replaced", file: future, backup: good, wantErr: new(*violations.VersionError)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var recovered []string
			s := &store{dir: t.TempDir(), recovered: func(id, name string, cause error) {
				recovered = append(recovered, id+"/"+name)
				if !errors.As(cause, new(*violations.DecodeError)) && !errors.Is(cause, fs.ErrNotExist) {
					t.Errorf("recovered from %v, want a DecodeError or a missing file", cause)
				}
			}}
			path := filepath.Join(s.dir, "plan", LedgerFile)
			_ = os.MkdirAll(filepath.Dir(path), 0o755)
			if tt.file != nil {
				_ = os.WriteFile(path, tt.file, 0o644)
			}
			if tt.backup != nil {
				_ = os.WriteFile(path+BackupSuffix, tt.backup, 0o644)
			}
			l, _, err := s.loadLedger("plan")
			if tt.wantErr != nil {
				if !errors.As(err, tt.wantErr) {
					t.Fatalf("err = %v, want %T", err, tt.wantErr)
				}
				if got, _ := os.ReadFile(path); string(got) != string(tt.file) {
					t.Error("the file was changed")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var keys []string
			for _, v := range l.Violations {
				keys = append(keys, v.Key)
			}
			if !slices.Equal(keys, tt.wantKeys) {
				t.Errorf("violations %v, want %v", keys, tt.wantKeys)
			}
			if got := len(recovered) > 0; got != tt.wantRecovered {
				t.Errorf("recovered %v, want %v", recovered, tt.wantRecovered)
			}
			if tt.wantRecovered {
				if got, _ := os.ReadFile(path); string(got) != string(tt.backup) {
					t.Error("the file was not restored from its previous generation")
				}
			}
		})
	}
}

func TestStore_AHealthFileTruncatedIsRecovered(t *testing.T) {
	s := &store{dir: t.TempDir()}
	for i := range 3 {
		if err := s.appendHealth("plan", report.HealthSample{Reason: fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(s.dir, "plan", HealthFile)
	data, _ := os.ReadFile(path)
	_ = os.WriteFile(path, data[:len(data)-7], 0o644)
	samples, err := s.loadHealth("plan")
	if err != nil || len(samples) != 2 {
		t.Errorf("samples = %+v, %v; want the 2 of the previous generation", samples, err)
	}
}

func TestStore_ALedgerWrittenOnceIsItsOwnBackup(t *testing.T) {
	s := &store{dir: t.TempDir()}
	l := violations.NewLedger("plan").Merge([]violations.Violation{{Key: "a", Plan: "plan"}})
	if _, err := s.saveLedger("plan", l, nil); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(s.dir, "plan", LedgerFile)
	data, _ := os.ReadFile(path)
	_ = os.WriteFile(path, data[:len(data)/3], 0o644)
	got, _, err := s.loadLedger("plan")
	if err != nil || len(got.Violations) != 1 {
		t.Errorf("ledger = %+v, %v; want the one violation written", got.Violations, err)
	}
}
