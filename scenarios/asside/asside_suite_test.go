package asside

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestAsside(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "authorization-server driver")
}
