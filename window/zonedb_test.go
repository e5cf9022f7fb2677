package window_test

import (
	"archive/zip"
	"crypto/sha256"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// A zoneDB is one zone database: Go's embedded one (lib/time/zoneinfo.zip,
// what time/tzdata and ZONEINFO give distroless images) or the system's
// (/usr/share/zoneinfo). They differ: Go's ends its transition tables early
// and leaves later years to the POSIX rule at their end, where Go's zone
// bounds go wrong on December 31 of leap years (golang/go#81583).
type zoneDB struct {
	name  string
	locs  map[string]*time.Location
	zones []string // sorted; one name for each distinct zone file
}

func (db *zoneDB) loc(tb testing.TB, zone string) *time.Location {
	tb.Helper()
	l, ok := db.locs[zone]
	if !ok {
		tb.Fatalf("%s zone database has no %s", db.name, zone)
	}
	return l
}

var (
	zoneDBsOnce sync.Once
	zoneDBsVal  []*zoneDB
	zoneDBsErr  error
)

// zoneDBs returns Go's zone database and, where the machine has one, the
// system's. CI machines have both; a machine without /usr/share/zoneinfo
// runs against Go's alone and says so.
func zoneDBs(tb testing.TB) []*zoneDB {
	tb.Helper()
	zoneDBsOnce.Do(func() {
		var files map[string][]byte
		files, zoneDBsErr = goZoneFiles()
		if zoneDBsErr != nil {
			return
		}
		zoneDBsVal = append(zoneDBsVal, newZoneDB("go", files))
		if sys := systemZoneFiles(); len(sys) > 0 {
			zoneDBsVal = append(zoneDBsVal, newZoneDB("system", sys))
		}
	})
	if zoneDBsErr != nil {
		tb.Fatalf("Go's zone database: %v", zoneDBsErr)
	}
	if len(zoneDBsVal) < 2 {
		tb.Logf("no system zone database in /usr/share/zoneinfo: only Go's is swept")
	}
	return zoneDBsVal
}

func newZoneDB(name string, files map[string][]byte) *zoneDB {
	db := &zoneDB{name: name, locs: map[string]*time.Location{}}
	seen := map[[32]byte]bool{}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		l, err := time.LoadLocationFromTZData(n, files[n])
		if err != nil {
			continue // not a zone file (tables, leap seconds)
		}
		db.locs[n] = l
		if sum := sha256.Sum256(files[n]); !seen[sum] {
			seen[sum] = true
			db.zones = append(db.zones, n)
		}
	}
	return db
}

func goZoneFiles() (map[string][]byte, error) {
	root := runtime.GOROOT()
	if r := os.Getenv("GOROOT"); r != "" {
		root = r
	}
	zr, err := zip.OpenReader(filepath.Join(root, "lib", "time", "zoneinfo.zip"))
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	files := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return nil, err
		}
		files[f.Name] = b
	}
	return files, nil
}

func systemZoneFiles() map[string][]byte {
	const dir = "/usr/share/zoneinfo"
	files := map[string][]byte{}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			if rel == "posix" || rel == "right" {
				return filepath.SkipDir
			}
			return nil
		}
		if rel == "localtime" || rel == "posixrules" || strings.Contains(rel, ".") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err == nil && strings.HasPrefix(string(b), "TZif") {
			files[rel] = b
		}
		return nil
	})
	return files
}
