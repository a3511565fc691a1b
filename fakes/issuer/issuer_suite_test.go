package issuer_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestIssuer(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "token issuer")
}
