package asside

import (
	"net/http"
	"net/url"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("a login form", func() {
	page, _ := url.Parse("http://127.0.0.1:9000/realms/test/login?x=1")

	It("is read as a browser submits it: the action resolved, hidden fields kept, unchecked boxes and buttons left out", func() {
		f, ok := firstForm([]byte(`<html><body><p>Sign in</p>
			<form method="POST" action="authenticate?session=abc">
			<input type="hidden" name="request" value="r-1">
			<input name="username"><input type="password" name="password">
			<input type="checkbox" name="remember" value="on">
			<input type="checkbox" name="consent" value="yes" checked>
			<input type="submit" name="go" value="Sign in">
			</form><form action="/other"><input name="q"></form></body></html>`), page)
		Expect(ok).To(BeTrue())
		Expect(f.method).To(Equal(http.MethodPost))
		Expect(f.action.String()).To(Equal("http://127.0.0.1:9000/realms/test/authenticate?session=abc"))
		Expect(f.values).To(Equal(url.Values{"request": {"r-1"}, "username": {""}, "password": {""}, "consent": {"yes"}}))
	})

	It("submits with GET when the form names no method, and finds none in a page without a form", func() {
		f, ok := firstForm([]byte(`<form action="/approve"><input name="scope" value="mcp"></form>`), page)
		Expect(ok).To(BeTrue())
		Expect(f.method).To(Equal(http.MethodGet))
		Expect(f.action.String()).To(Equal("http://127.0.0.1:9000/approve"))
		_, ok = firstForm([]byte(`<p>no form here</p>`), page)
		Expect(ok).To(BeFalse())
	})
})
