package authserver_test

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/authserver"
)

const endpoint = "http://127.0.0.1:1234/mcp"

// proof signs a DPoP proof of claims with key, edited by header options.
func proof(key *ecdsa.PrivateKey, typ string, embedPrivate bool, claims map[string]any) string {
	GinkgoHelper()
	opts := &jose.SignerOptions{EmbedJWK: !embedPrivate}
	if embedPrivate {
		opts = opts.WithHeader("jwk", jose.JSONWebKey{Key: key, Algorithm: "ES256"})
	}
	if typ != "" {
		opts = opts.WithType(jose.ContentType(typ))
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, opts)
	Expect(err).NotTo(HaveOccurred())
	s, err := jwt.Signed(signer).Claims(claims).Serialize()
	Expect(err).NotTo(HaveOccurred())
	return s
}

func ath(token string) string {
	sum := sha256.Sum256([]byte(token))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

var _ = Describe("DPoP proofs", func() {
	var key *ecdsa.PrivateKey
	var good map[string]any
	BeforeEach(func() {
		var err error
		key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		Expect(err).NotTo(HaveOccurred())
		good = map[string]any{"jti": "j1", "htm": "POST", "htu": endpoint, "iat": time.Now().Unix(), "ath": ath("tok")}
	})
	with := func(k string, v any) map[string]any {
		c := map[string]any{}
		for n, x := range good {
			c[n] = x
		}
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
		return c
	}

	It("passes a well-formed proof and gives its key's thumbprint", func() {
		p := authserver.CheckProof([]string{proof(key, "dpop+jwt", false, good)}, "POST", endpoint, "tok", time.Now())
		Expect(p.Problems).To(BeEmpty())
		tp, err := (&jose.JSONWebKey{Key: &key.PublicKey}).Thumbprint(crypto.SHA256)
		Expect(err).NotTo(HaveOccurred())
		Expect(p.JKT).To(Equal(base64.RawURLEncoding.EncodeToString(tp)))
		Expect(p.JTI).To(Equal("j1"))
	})

	DescribeTable("names what a proof breaks",
		func(typ string, private bool, claims func() map[string]any, method, problem string) {
			p := authserver.CheckProof([]string{proof(key, typ, private, claims())}, method, endpoint, "tok", time.Now())
			Expect(strings.Join(p.Problems, "; ")).To(ContainSubstring(problem))
		},
		Entry("typ", "JWT", false, func() map[string]any { return good }, "POST", "typ"),
		Entry("a private key in jwk", "dpop+jwt", true, func() map[string]any { return good }, "POST", "private key"),
		Entry("no jti", "dpop+jwt", false, func() map[string]any { return with("jti", nil) }, "POST", "no jti"),
		Entry("htm", "dpop+jwt", false, func() map[string]any { return good }, "GET", "htm"),
		Entry("htu with a query", "dpop+jwt", false, func() map[string]any { return with("htu", endpoint+"?a=1") }, "POST", "query"),
		Entry("htu of another URI", "dpop+jwt", false, func() map[string]any { return with("htu", "http://127.0.0.1:1234/other") }, "POST", "htu"),
		Entry("an old iat", "dpop+jwt", false, func() map[string]any { return with("iat", time.Now().Add(-time.Hour).Unix()) }, "POST", "iat"),
		Entry("no ath", "dpop+jwt", false, func() map[string]any { return with("ath", nil) }, "POST", "ath"),
		Entry("the ath of another token", "dpop+jwt", false, func() map[string]any { return with("ath", ath("other")) }, "POST", "ath"),
	)

	It("refuses a missing or doubled header and a signature of another key", func() {
		Expect(authserver.CheckProof(nil, "POST", endpoint, "", time.Now()).Problems).To(ContainElement("no DPoP header"))
		p := proof(key, "dpop+jwt", false, good)
		Expect(authserver.CheckProof([]string{p, p}, "POST", endpoint, "tok", time.Now()).Problems).To(ContainElement("more than one DPoP header"))
		parts := strings.Split(p, ".")
		other := strings.Split(proof(mustKey(), "dpop+jwt", false, good), ".")
		forged := parts[0] + "." + parts[1] + "." + other[2]
		got := authserver.CheckProof([]string{forged}, "POST", endpoint, "tok", time.Now())
		Expect(got.JKT).To(BeEmpty())
		Expect(strings.Join(got.Problems, "; ")).To(ContainSubstring("signature"))
	})
})

func mustKey() *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	Expect(err).NotTo(HaveOccurred())
	return k
}

var _ = Describe("JWT assertions", func() {
	It("verifies the signature and judges iss, sub, aud, exp and jti", func() {
		key, err := authserver.NewKey()
		Expect(err).NotTo(HaveOccurred())
		now := time.Now()
		s, err := key.Sign("JWT", map[string]any{"iss": "c", "sub": "c", "aud": "http://127.0.0.1:1/t", "exp": now.Add(time.Minute).Unix(), "jti": "x"})
		Expect(err).NotTo(HaveOccurred())
		j, err := authserver.Verify(s, key.Public())
		Expect(err).NotTo(HaveOccurred())
		Expect(j.Typ).To(Equal("JWT"))
		Expect(authserver.AssertionProblems(j, "c", "c", authserver.Audiences("http://127.0.0.1:1/t", "http://127.0.0.1:1/t/token"), true, now)).To(BeEmpty())
		Expect(authserver.AssertionProblems(j, "d", "d", []string{"http://elsewhere"}, true, now)).To(HaveLen(3))
		Expect(authserver.AssertionProblems(j, "", "", []string{"http://127.0.0.1:1/t"}, false, now.Add(time.Hour))).To(ConsistOf("exp in the past"))

		bare, err := key.Sign("", map[string]any{"iss": "c", "sub": "c", "aud": "a"})
		Expect(err).NotTo(HaveOccurred())
		j, err = authserver.Verify(bare, key.Public())
		Expect(err).NotTo(HaveOccurred())
		Expect(authserver.AssertionProblems(j, "", "", []string{"a"}, true, now)).To(ConsistOf("no exp", "no jti"))

		other, err := authserver.NewKey()
		Expect(err).NotTo(HaveOccurred())
		_, err = authserver.Verify(s, other.Public())
		Expect(err).To(HaveOccurred())
	})
})

var _ = Describe("the token endpoint's extension hooks", func() {
	It("asks for the DPoP nonce before spending anything, then binds the token to the proof's key", func() {
		log := authserver.NewLog()
		s := authserver.New(authserver.Options{Bind: authserver.DPoPBinder("n0"),
			Grant: func(r *authserver.TokenRequest, _ *http.Request) (*authserver.Grant, string, int, string) {
				return &authserver.Grant{ClientID: "c"}, "", 0, ""
			}}, log)
		srv := httptest.NewServer(s)
		defer srv.Close()
		s.Base = srv.URL
		key := mustKey()
		post := func(nonce string) *http.Response {
			claims := map[string]any{"jti": nonce + "j", "htm": "POST", "htu": s.Endpoint("/token"), "iat": time.Now().Unix()}
			if nonce != "" {
				claims["nonce"] = nonce
			}
			req, err := http.NewRequest(http.MethodPost, s.Endpoint("/token"), strings.NewReader(url.Values{"grant_type": {"client_credentials"}}.Encode()))
			Expect(err).NotTo(HaveOccurred())
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("DPoP", proof(key, "dpop+jwt", false, claims))
			resp, err := srv.Client().Do(req)
			Expect(err).NotTo(HaveOccurred())
			return resp
		}
		resp := post("")
		Expect(resp.StatusCode).To(Equal(http.StatusBadRequest))
		Expect(resp.Header.Get("DPoP-Nonce")).To(Equal("n0"))
		var body map[string]any
		Expect(json.NewDecoder(resp.Body).Decode(&body)).To(Succeed())
		resp.Body.Close()
		Expect(body["error"]).To(Equal("use_dpop_nonce"))
		Expect(s.Grants()).To(BeEmpty())

		resp = post("n0")
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(json.NewDecoder(resp.Body).Decode(&body)).To(Succeed())
		resp.Body.Close()
		Expect(body["token_type"]).To(Equal("DPoP"))
		g, ok := s.Lookup(body["access_token"].(string))
		Expect(ok).To(BeTrue())
		tp, err := (&jose.JSONWebKey{Key: &key.PublicKey}).Thumbprint(crypto.SHA256)
		Expect(err).NotTo(HaveOccurred())
		Expect(g.JKT).To(Equal(base64.RawURLEncoding.EncodeToString(tp)))
	})

	It("answers a grant that is no access token with its own members, and keeps it from the resource", func() {
		s := authserver.New(authserver.Options{Grant: func(r *authserver.TokenRequest, _ *http.Request) (*authserver.Grant, string, int, string) {
			return &authserver.Grant{Access: "jag-1", TokenType: "N_A", NotAccess: true, Answer: map[string]any{"issued_token_type": authserver.TokenTypeIDJAG}}, "", 0, ""
		}}, authserver.NewLog())
		srv := httptest.NewServer(s)
		defer srv.Close()
		s.Base = srv.URL
		resp, err := srv.Client().PostForm(s.Endpoint("/token"), url.Values{"grant_type": {authserver.GrantTokenExchange}})
		Expect(err).NotTo(HaveOccurred())
		var body map[string]any
		Expect(json.NewDecoder(resp.Body).Decode(&body)).To(Succeed())
		resp.Body.Close()
		Expect(body).To(HaveKeyWithValue("token_type", "N_A"))
		Expect(body).To(HaveKeyWithValue("issued_token_type", authserver.TokenTypeIDJAG))
		_, kept := s.Lookup("jag-1")
		Expect(kept).To(BeFalse())
	})
})
