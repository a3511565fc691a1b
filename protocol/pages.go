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
	page, anchor, _ := strings.Cut(rest, "#")
	if moved, ok := splitPage(version, page, anchor); ok {
		return version + "/" + moved + "#" + anchor
	}
	if !specPages[version+"/"+page] {
		return ref
	}
	return version + "/" + rest
}

// split lists pages a version divided into several, and for each new page
// the sections (anchors) it took; the first page takes the rest.
var split = map[string]map[string][]struct {
	page    string
	anchors []string
}{
	V20260728: {
		"basic/authorization.mdx": {
			{"basic/authorization/index.mdx", nil},
			{"basic/authorization/authorization-server-discovery.mdx", []string{"authorization-server-location",
				"protected-resource-metadata-discovery-requirements", "authorization-server-metadata-discovery"}},
			{"basic/authorization/client-registration.mdx", []string{"client-id-metadata-documents", "implementation-requirements", "preregistration",
				"pre-registration", "dynamic-client-registration"}},
			{"basic/authorization/security-considerations.mdx", []string{"token-audience-binding-and-validation", "token-theft",
				"communication-security", "authorization-code-protection", "open-redirection", "client-id-metadata-document-security"}},
		},
	},
}

// splitPage finds where a section of a page went in a version that split it.
func splitPage(version, page, anchor string) (string, bool) {
	parts, ok := split[version][page]
	if !ok {
		return "", false
	}
	for _, p := range parts[1:] {
		for _, a := range p.anchors {
			if a == anchor {
				return p.page, true
			}
		}
	}
	return parts[0].page, true
}
