package ahead_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestAhead(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "internal/ahead")
}
