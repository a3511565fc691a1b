package lifecycle

// Internal specs: Ginkgo is imported as g, as in the tasks family, so the
// package's own names cannot clash with a dot import.

import (
	"testing"

	g "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestLifecycle(t *testing.T) {
	RegisterFailHandler(g.Fail)
	g.RunSpecs(t, "server lifecycle")
}
