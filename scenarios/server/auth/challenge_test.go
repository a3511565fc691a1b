package auth

import (
	"net/http"
	"net/url"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("WWW-Authenticate", func() {
	It("reads a Bearer challenge's params, quoted or not, names without case", func() {
		h := http.Header{"Www-Authenticate": {`Bearer resource_metadata="http://127.0.0.1:3000/.well-known/oauth-protected-resource/mcp", Scope="a b", error=insufficient_scope`}}
		c, ok := bearer(h)
		Expect(ok).To(BeTrue())
		Expect(c.params).To(Equal(map[string]string{"resource_metadata": "http://127.0.0.1:3000/.well-known/oauth-protected-resource/mcp",
			"scope": "a b", "error": "insufficient_scope"}))
	})

	It("finds the Bearer challenge among others, in one value or several", func() {
		c, ok := bearer(http.Header{"Www-Authenticate": {`Basic realm="x", Bearer error="invalid_token", realm="mcp"`}})
		Expect(ok).To(BeTrue())
		Expect(c.params).To(HaveKeyWithValue("error", "invalid_token"))
		Expect(c.params).To(HaveKeyWithValue("realm", "mcp"))
		c, ok = bearer(http.Header{"Www-Authenticate": {`DPoP algs="ES256"`, `bearer scope="x"`}})
		Expect(ok).To(BeTrue())
		Expect(c.params).To(HaveKeyWithValue("scope", "x"))
	})

	It("keeps escaped quotes and takes a bare scheme", func() {
		c, ok := bearer(http.Header{"Www-Authenticate": {`Bearer error_description="the \"exp\" claim"`}})
		Expect(ok).To(BeTrue())
		Expect(c.params).To(HaveKeyWithValue("error_description", `the "exp" claim`))
		c, ok = bearer(http.Header{"Www-Authenticate": {"Bearer"}})
		Expect(ok).To(BeTrue())
		Expect(c.params).To(BeEmpty())
	})

	It("says where a challenge breaks the grammar, and keeps what it read before", func() {
		all, err := parseChallenges([]string{`Bearer error="invalid_token", error_description=""exp" claim timestamp check failed", scope="mcp:tools", resource_metadata="http://x/"`})
		Expect(err).To(MatchError(ContainSubstring("not a comma")))
		Expect(all).To(HaveLen(1))
		Expect(all[0].params).To(HaveKeyWithValue("error", "invalid_token"))
		Expect(all[0].params).NotTo(HaveKey("resource_metadata"))
		_, err = parseChallenges([]string{`Bearer realm="open`})
		Expect(err).To(MatchError(ContainSubstring("closing quote")))
		_, err = parseChallenges([]string{`Bearer realm="a \"quoted\" word", scope=x`})
		Expect(err).NotTo(HaveOccurred())
	})

	It("finds no Bearer challenge where there is none", func() {
		_, ok := bearer(http.Header{})
		Expect(ok).To(BeFalse())
		_, ok = bearer(http.Header{"Www-Authenticate": {`Basic realm="x"`}})
		Expect(ok).To(BeFalse())
	})
})

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
