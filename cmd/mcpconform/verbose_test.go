package main_test

import (
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("-v", func() {
	It("shows the steps, the failure and the transcript without mcpconform's source locations", func() {
		s := run(1, "server", "-v", "--reference", "--fault", "ping-error", "--transport", "http", "--spec-version", "2025-11-25",
			"--scenario", "lifecycle-ping", "-o", filepath.Join(GinkgoT().TempDir(), "out"))
		stderr := string(s.Err.Contents())
		Expect(stderr).To(ContainSubstring("STEP: send ping"))
		Expect(stderr).To(ContainSubstring(`Actual:   error -32603 "ping failed"`))
		Expect(stderr).To(ContainSubstring(`"method":"ping"`), "the transcript")
		Expect(stderr).NotTo(MatchRegexp(`\.go:\d+`))
	})
})
