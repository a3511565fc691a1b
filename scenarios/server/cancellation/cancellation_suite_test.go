package cancellation

// Internal specs: Ginkgo is imported as g, as in the tasks family.

import (
	"testing"
	"time"

	g "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestCancellation(t *testing.T) {
	RegisterFailHandler(g.Fail)
	g.RunSpecs(t, "server cancellation")
}

var _ = g.Describe("runTime", func() {
	g.It("reads the fixture's ms, else falls back", func() {
		Expect(runTime(map[string]any{"ms": 500}, time.Second)).To(Equal(500 * time.Millisecond))
		Expect(runTime(map[string]any{"ms": float64(250)}, time.Second)).To(Equal(250 * time.Millisecond))
		Expect(runTime(map[string]any{"seconds": 1}, time.Second)).To(Equal(time.Second))
	})
})
