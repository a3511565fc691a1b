package protocol

import "strings"

// The list of spec pages is generated from ../shared/mcp-spec/docs; the
// freshness test (pages_test.go) runs this line into a temporary file.
//
//go:generate go run ./internal/genpages -docs ../../shared/mcp-spec/docs -out pages_gen.go

// PageFor cites a spec reference ("2025-11-25/basic/lifecycle.mdx#…") at
// the version being judged: the same page of that version when it has one,
// the reference as written otherwise (a rule that first appeared later).
func PageFor(ref, version string) string {
	written, rest, ok := strings.Cut(ref, "/")
	if !ok || written == version || !IsKnown(written) {
		return ref
	}
	page, _, _ := strings.Cut(rest, "#")
	if !specPages[version+"/"+page] {
		return ref
	}
	return version + "/" + rest
}
