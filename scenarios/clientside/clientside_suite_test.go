package clientside

import (
	"testing"

	g "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestClientside(t *testing.T) {
	RegisterFailHandler(g.Fail)
	g.RunSpecs(t, "clientside")
}
