// Package version names the build.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Version is the release; builds may set it with
// -ldflags "-X github.com/shiro-neko/shiro/internal/version.Version=1.2.3".
var Version = "0.1.0-dev"

// String is the --version line: name, version, Go version, os/arch and,
// when known, the commit the binary was built from.
func String() string {
	s := fmt.Sprintf("shiro-neko %s  %s  %s/%s", Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, kv := range info.Settings {
			if kv.Key == "vcs.revision" && len(kv.Value) >= 12 {
				s += "  " + kv.Value[:12]
			}
		}
	}
	return s
}
