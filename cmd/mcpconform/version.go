package main

import (
	"runtime/debug"
	"strings"
)

// devVersion is toolVersion when neither -ldflags nor the module's build
// information says otherwise.
const devVersion = "0.1.0-dev"

func init() {
	if toolVersion == devVersion {
		if info, ok := debug.ReadBuildInfo(); ok {
			toolVersion = versionFrom(info)
		}
	}
}

// versionFrom is the version a build says it is: the module's tag when it
// was installed as a module (go install …/cmd/mcpconform@v1.2.3), otherwise
// the development version with the commit it was built from (and "-dirty"
// when the tree had changes).
func versionFrom(info *debug.BuildInfo) string {
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return strings.TrimPrefix(v, "v")
	}
	var revision, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if revision == "" {
		return devVersion
	}
	if len(revision) > 12 {
		revision = revision[:12]
	}
	v := devVersion + "+" + revision
	if modified == "true" {
		v += "-dirty"
	}
	return v
}
