package auth

import (
	"net/url"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("the Protected Resource Metadata's places", func() {
	It("lists the path-based well-known URI before the root's, on the endpoint's http origin", func() {
		u, _ := url.Parse("ws://127.0.0.1:8080/public/mcp")
		Expect(wellKnownPRM(u)).To(Equal([]string{"http://127.0.0.1:8080/.well-known/oauth-protected-resource/public/mcp",
			"http://127.0.0.1:8080/.well-known/oauth-protected-resource"}))
		u, _ = url.Parse("https://example.com/")
		Expect(wellKnownPRM(u)).To(Equal([]string{"https://example.com/.well-known/oauth-protected-resource"}))
	})

	It("fetches nothing on another origin", func() {
		base, _ := url.Parse("http://127.0.0.1:3000/mcp")
		for _, other := range []string{"http://127.0.0.2:3000/x", "https://127.0.0.1:3000/x", "http://127.0.0.1:3001/x"} {
			u, _ := url.Parse(other)
			Expect(sameOrigin(u, base)).To(BeFalse(), other)
		}
		u, _ := url.Parse("http://127.0.0.1:3000/.well-known/oauth-protected-resource")
		Expect(sameOrigin(u, base)).To(BeTrue())
	})
})
