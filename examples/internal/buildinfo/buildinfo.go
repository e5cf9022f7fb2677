// Package buildinfo says which build a binary of the examples is: the
// examples module's version, the library built in, the VCS revision and Go,
// all read from the Go build information (runtime/debug), so that no
// release step has to stamp them with -ldflags. The operator and the API
// server print it for --version and log it once at start.
package buildinfo

import (
	"fmt"
	"runtime/debug"
)

// LibraryPath is the library's module path, looked up among the
// dependencies.
const LibraryPath = "github.com/telark/protectionplans"

// Info is one binary's build.
type Info struct {
	// Version is the main module's version; (devel) when built from a
	// checkout.
	Version string `json:"version"`
	// Library is the version of the library built in, and where a
	// replace directive took it from.
	Library string `json:"library"`
	// Commit is the VCS revision, when the build recorded one; Modified
	// says whether the work tree had changes.
	Commit   string `json:"commit,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
}

// Read returns the running binary's build; fields it cannot know are
// "(unknown)".
func Read() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Info{Version: "(unknown)", Library: "(unknown)", Go: "(unknown)"}
	}
	return FromBuildInfo(bi)
}

// FromBuildInfo extracts an Info from Go's build information.
func FromBuildInfo(bi *debug.BuildInfo) Info {
	v := Info{Version: bi.Main.Version, Library: "(unknown)", Go: bi.GoVersion}
	if bi.Main.Path == LibraryPath {
		v.Library = bi.Main.Version
	}
	for _, d := range bi.Deps {
		if d.Path != LibraryPath {
			continue
		}
		v.Library = d.Version
		if d.Replace != nil {
			v.Library = d.Replace.Path + " " + d.Replace.Version
			if d.Replace.Version == "" {
				v.Library = d.Replace.Path
			}
		}
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// String is the one line --version prints: name, version, library,
// commit (with "+dirty" for a modified work tree) and Go.
func (v Info) String() string {
	commit := v.Commit
	if commit == "" {
		commit = "(none)"
	} else if v.Modified {
		commit += "+dirty"
	}
	return fmt.Sprintf("%s (library %s, commit %s, %s)", v.Version, v.Library, commit, v.Go)
}
