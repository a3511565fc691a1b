package issuer_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/issuer"
	"github.com/mcpconform/mcpconform/internal/secret"
)

const resource = "http://127.0.0.1:3000/mcp"

var _ = Describe("the issuer", func() {
	var (
		iss  *issuer.Issuer
		base string
	)
	BeforeEach(func() {
		ln, u, err := issuer.Listen("127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		iss, err = issuer.New(u)
		Expect(err).NotTo(HaveOccurred())
		srv := iss.Serve(ln)
		DeferCleanup(srv.Close)
		base = u
	})
	mint := func(form issuer.Form, d issuer.Defect) string {
		tok, err := iss.Mint(issuer.Token{Subject: "alice", Audience: resource, Scopes: []string{"mcp:tools"}, Form: form, Defect: d})
		Expect(err).NotTo(HaveOccurred())
		return tok
	}

	It("mints a JWT its own JWKS verifies, with the claims a resource server reads", func() {
		c, err := issuer.Verify(mint(issuer.JWT, issuer.Sound), iss.PublicKeys(), iss.URL(), time.Now())
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Subject).To(Equal("alice"))
		Expect(c.Audience.Contains(resource)).To(BeTrue())
		Expect(c.Scopes()).To(ConsistOf("mcp:tools"))
	})

	It("makes each defect fail verification the way it names", func() {
		for d, want := range map[issuer.Defect]string{
			issuer.Expired: "expired", issuer.NotYetValid: "not valid yet", issuer.WrongIssuer: "issuer",
			issuer.BadSignature: "signature", issuer.AlgNone: "not a JWT",
		} {
			_, err := issuer.Verify(mint(issuer.JWT, d), iss.PublicKeys(), iss.URL(), time.Now())
			Expect(err).To(MatchError(ContainSubstring(want)), "a token %s", d)
		}
		c, err := issuer.Verify(mint(issuer.JWT, issuer.WrongAud), iss.PublicKeys(), iss.URL(), time.Now())
		Expect(err).NotTo(HaveOccurred(), "the audience is the resource server's to judge")
		Expect(c.Audience.Contains(resource)).To(BeFalse())
	})

	It("writes alg none as an unsigned JWT", func() {
		parts := strings.Split(mint(issuer.JWT, issuer.AlgNone), ".")
		Expect(parts).To(HaveLen(3))
		Expect(parts[2]).To(BeEmpty())
	})

	It("registers every token it mints as a secret", func() {
		tok := mint(issuer.Opaque, issuer.Sound)
		Expect(secret.Redact("Bearer " + tok)).To(Equal("Bearer " + secret.Redacted))
	})

	It("serves its metadata and JWKS, and introspects opaque tokens (RFC 7662)", func() {
		resp, err := http.Get(base + issuer.WellKnownOAuth)
		Expect(err).NotTo(HaveOccurred())
		var meta map[string]any
		Expect(json.NewDecoder(resp.Body).Decode(&meta)).To(Succeed())
		resp.Body.Close()
		Expect(meta).To(HaveKeyWithValue("issuer", base))
		Expect(meta).To(HaveKeyWithValue("jwks_uri", base+issuer.PathJWKS))

		introspect := func(tok string) map[string]any {
			resp, err := http.PostForm(base+issuer.PathIntrospect, url.Values{"token": {tok}})
			Expect(err).NotTo(HaveOccurred())
			defer resp.Body.Close()
			Expect(resp.StatusCode).To(Equal(http.StatusOK))
			var a map[string]any
			Expect(json.NewDecoder(resp.Body).Decode(&a)).To(Succeed())
			return a
		}
		sound := mint(issuer.Opaque, issuer.Sound)
		Expect(sound).NotTo(HavePrefix("eyJ"), "an opaque token reads as no JWT")
		Expect(introspect(sound)).To(And(HaveKeyWithValue("active", true), HaveKeyWithValue("scope", "mcp:tools")))
		Expect(introspect(mint(issuer.Opaque, issuer.WrongAud))).To(HaveKeyWithValue("aud", ContainElement(issuer.ForeignAudience)))
		for _, d := range []issuer.Defect{issuer.Expired, issuer.NotYetValid, issuer.WrongIssuer, issuer.BadSignature, issuer.AlgNone} {
			Expect(introspect(mint(issuer.Opaque, d))).To(Equal(map[string]any{"active": false}), "a token %s", d)
		}
		Expect(introspect("mcpconform-unknown-token")).To(HaveKeyWithValue("active", false))
	})

	It("keeps its key and URL in a state file only its owner reads, and refuses another issuer's", func() {
		path := filepath.Join(GinkgoT().TempDir(), "state.json")
		first, err := issuer.Load(path, "http://127.0.0.1:9400", true)
		Expect(err).NotTo(HaveOccurred())
		st, err := os.Stat(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(st.Mode().Perm()).To(Equal(os.FileMode(0o600)))
		again, err := issuer.Load(path, "", false)
		Expect(err).NotTo(HaveOccurred())
		Expect(again.URL()).To(Equal(first.URL()))
		tok, err := first.Mint(issuer.Token{Subject: "a", Audience: resource})
		Expect(err).NotTo(HaveOccurred())
		_, err = issuer.Verify(tok, again.PublicKeys(), again.URL(), time.Now())
		Expect(err).NotTo(HaveOccurred(), "the same key across loads")
		_, err = issuer.Load(path, "http://127.0.0.1:9401", true)
		Expect(err).To(MatchError(ContainSubstring("not http://127.0.0.1:9401")))
		_, err = issuer.Load(filepath.Join(GinkgoT().TempDir(), "missing.json"), "", false)
		Expect(err).To(HaveOccurred())
	})

	It("listens on loopback only", func() {
		_, _, err := issuer.Listen("0.0.0.0:0")
		Expect(err).To(MatchError(ContainSubstring("only on loopback")))
		_, _, err = issuer.Listen("9400")
		Expect(err).To(MatchError(ContainSubstring("HOST:PORT")))
	})
})
