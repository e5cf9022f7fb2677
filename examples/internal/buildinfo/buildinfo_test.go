package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	tests := []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{name: "a build from a checkout with the library replaced by its directory names both and the dirty commit",
			bi: debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/telark/protectionplans/examples", Version: "(devel)"},
				Deps:     []*debug.Module{{Path: LibraryPath, Version: "v0.0.0", Replace: &debug.Module{Path: ".."}}},
				Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "067270c"}, {Key: "vcs.modified", Value: "true"}}},
			want: "(devel) (library .., commit 067270c+dirty, go1.26.8)"},
		{name: "a released build names the library's version and a clean commit",
			bi: debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/telark/protectionplans/examples", Version: "v1.2.0"},
				Deps:     []*debug.Module{{Path: LibraryPath, Version: "v1.2.0"}},
				Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "false"}}},
			want: "v1.2.0 (library v1.2.0, commit abc, go1.26.8)"},
		{name: "a build that recorded no VCS data says so",
			bi:   debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "x", Version: "(devel)"}},
			want: "(devel) (library (unknown), commit (none), go1.26.8)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FromBuildInfo(&tt.bi).String(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestReadKnowsTheGoVersion(t *testing.T) {
	if v := Read(); v.Go == "" || v.Go == "(unknown)" {
		t.Errorf("Read() = %+v: a test binary has build information", v)
	}
}
