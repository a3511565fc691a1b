package reports_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// go test ./reports/... -update rewrites the golden files under testdata/.
var update = flag.Bool("update", false, "rewrite golden files in testdata/")

func TestReports(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Reports Suite")
}

// expectGolden compares got with testdata/name, or rewrites it under -update.
func expectGolden(name string, got []byte) {
	GinkgoHelper()
	path := filepath.Join("testdata", name)
	if *update {
		Expect(os.MkdirAll("testdata", 0o755)).To(Succeed())
		Expect(os.WriteFile(path, got, 0o644)).To(Succeed())
		return
	}
	want, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred(), "missing golden file; run: go test ./reports/... -update")
	Expect(string(got)).To(Equal(string(want)), "output differs from %s; if intended, run: go test ./reports/... -update", path)
}
