package scenarios

// The specs of this package are internal (they reach the unexported catalogue
// and helpers). Ginkgo is imported under the name g, not dot-imported: the
// package's own Describe, Fail, Pass and Skip would clash with Ginkgo's.

import (
	"testing"

	g "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestScenarios(t *testing.T) {
	RegisterFailHandler(g.Fail)
	g.RunSpecs(t, "scenarios")
}
