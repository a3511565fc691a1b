package transportrules

// Internal specs: Ginkgo is imported as g, as in the other server families.

import (
	"testing"

	g "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestTransportRules(t *testing.T) {
	RegisterFailHandler(g.Fail)
	g.RunSpecs(t, "server transport rules")
}
