package buildinfo_test

import (
	"fmt"
	"runtime/debug"

	"github.com/telark/protectionplans/examples/internal/buildinfo"
)

func ExampleFromBuildInfo() {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8",
		Main: debug.Module{Path: "github.com/telark/protectionplans/examples", Version: "v1.0.0"},
		Deps: []*debug.Module{{Path: buildinfo.LibraryPath, Version: "v1.0.0"}}}
	fmt.Println("operator", buildinfo.FromBuildInfo(bi))
	// Output: operator v1.0.0 (library v1.0.0, commit (none), go1.26.8)
}
