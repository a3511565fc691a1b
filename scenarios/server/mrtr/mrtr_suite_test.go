package mrtr

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestMRTR(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "server mrtr family")
}
