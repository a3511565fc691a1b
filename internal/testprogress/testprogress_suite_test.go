package testprogress_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestTestprogress(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "internal/testprogress")
}
