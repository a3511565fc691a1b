package wwwauth_test

import (
	"net/http"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/internal/wwwauth"
)

func TestWWWAuth(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "WWW-Authenticate")
}

var _ = Describe("WWW-Authenticate", func() {
	It("reads a Bearer challenge's params, quoted or not, names without case", func() {
		h := http.Header{"Www-Authenticate": {`Bearer resource_metadata="http://127.0.0.1:3000/.well-known/oauth-protected-resource/mcp", Scope="a b", error=insufficient_scope`}}
		c, ok := wwwauth.Find(h, "Bearer")
		Expect(ok).To(BeTrue())
		Expect(c.Params).To(Equal(map[string]string{"resource_metadata": "http://127.0.0.1:3000/.well-known/oauth-protected-resource/mcp",
			"scope": "a b", "error": "insufficient_scope"}))
	})

	It("finds the Bearer challenge among others, in one value or several", func() {
		c, ok := wwwauth.Find(http.Header{"Www-Authenticate": {`Basic realm="x", Bearer error="invalid_token", realm="mcp"`}}, "Bearer")
		Expect(ok).To(BeTrue())
		Expect(c.Params).To(HaveKeyWithValue("error", "invalid_token"))
		Expect(c.Params).To(HaveKeyWithValue("realm", "mcp"))
		c, ok = wwwauth.Find(http.Header{"Www-Authenticate": {`DPoP algs="ES256"`, `bearer scope="x"`}}, "Bearer")
		Expect(ok).To(BeTrue())
		Expect(c.Params).To(HaveKeyWithValue("scope", "x"))
	})

	It("keeps escaped quotes and takes a bare scheme", func() {
		c, ok := wwwauth.Find(http.Header{"Www-Authenticate": {`Bearer error_description="the \"exp\" claim"`}}, "Bearer")
		Expect(ok).To(BeTrue())
		Expect(c.Params).To(HaveKeyWithValue("error_description", `the "exp" claim`))
		c, ok = wwwauth.Find(http.Header{"Www-Authenticate": {"Bearer"}}, "Bearer")
		Expect(ok).To(BeTrue())
		Expect(c.Params).To(BeEmpty())
	})

	It("says where a challenge breaks the grammar, and keeps what it read before", func() {
		all, err := wwwauth.Parse([]string{`Bearer error="invalid_token", error_description=""exp" claim timestamp check failed", scope="mcp:tools", resource_metadata="http://x/"`})
		Expect(err).To(MatchError(ContainSubstring("not a comma")))
		Expect(all).To(HaveLen(1))
		Expect(all[0].Params).To(HaveKeyWithValue("error", "invalid_token"))
		Expect(all[0].Params).NotTo(HaveKey("resource_metadata"))
		_, err = wwwauth.Parse([]string{`Bearer realm="open`})
		Expect(err).To(MatchError(ContainSubstring("closing quote")))
		_, err = wwwauth.Parse([]string{`Bearer realm="a \"quoted\" word", scope=x`})
		Expect(err).NotTo(HaveOccurred())
	})

	It("finds no Bearer challenge where there is none", func() {
		_, ok := wwwauth.Find(http.Header{}, "Bearer")
		Expect(ok).To(BeFalse())
		_, ok = wwwauth.Find(http.Header{"Www-Authenticate": {`Basic realm="x"`}}, "Bearer")
		Expect(ok).To(BeFalse())
	})
})
