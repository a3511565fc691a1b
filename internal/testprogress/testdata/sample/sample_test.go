// Package sample is a Ginkgo suite for testprogress's own test: one spec
// passes, one skips itself, one waits until the test that runs it has seen
// a progress line (the file $SAMPLE_GO_AHEAD appears), one fails when
// $SAMPLE_FAIL is set.
package sample_test

import (
	"os"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/internal/testprogress"
)

func TestSample(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "sample")
}

var _ = testprogress.Register()

var _ = Describe("sample", Ordered, func() {
	It("passes", func() {})
	It("skips itself", func() { Skip("not here") })
	It("waits for the go-ahead", func() {
		Eventually(func() error { _, err := os.Stat(os.Getenv("SAMPLE_GO_AHEAD")); return err }).
			WithTimeout(2 * time.Minute).WithPolling(20 * time.Millisecond).Should(Succeed())
	})
	It("fails when asked", func() {
		if os.Getenv("SAMPLE_FAIL") != "" {
			Fail("asked to fail")
		}
	})
})
