package judge

// Internal specs: Ginkgo is imported as g, since the package's own names
// (Describe among them) would clash with a dot import.

import (
	"testing"

	g "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestJudge(t *testing.T) {
	RegisterFailHandler(g.Fail)
	g.RunSpecs(t, "judge")
}
