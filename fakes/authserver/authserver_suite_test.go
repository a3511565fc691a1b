package authserver_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestAuthserver(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "fake authorization server")
}
