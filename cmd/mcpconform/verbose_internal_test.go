package main

import (
	"bytes"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("the -v view's filter", func() {
	It("keeps a location that is not mcpconform's (a target's own stack trace)", func() {
		var out bytes.Buffer
		w := newSourcePaths(&out, "/src/mcpconform/")
		_, _ = w.Write([]byte("/src/mcpconform/suites/suites.go:359\n  warning - /src/mcpconform/suites/suites.go:370 @ 12/03/26 00:56:15.06\n"))
		_, _ = w.Write([]byte("  In [It] at: /src/mcpconform/suites/suites.go:372 @ 12/03/26\n  stderr: panic at /home/me/srv/main.go:42\nlast"))
		w.Flush()
		Expect(out.String()).To(Equal("  warning @ 12/03/26 00:56:15.06\n  stderr: panic at /home/me/srv/main.go:42\nlast"))
	})
})
