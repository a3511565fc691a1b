package wire

// Internal specs: Ginkgo is imported as g, as in the other families.

import (
	"testing"

	g "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestWire(t *testing.T) {
	RegisterFailHandler(g.Fail)
	g.RunSpecs(t, "server wire")
}
