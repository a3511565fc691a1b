package serverside_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestServerside(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "serverside")
}
