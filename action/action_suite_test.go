// Package action_test checks the GitHub Action (action.yml at the repository
// root and the scripts under action/) the way a runner uses it: the scripts
// run with the INPUT_* and GITHUB_* variables a runner sets.
package action_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestAction(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "action")
}

// root is the repository root: the action's own checkout, GITHUB_ACTION_PATH.
var root string

// exe is mcpconform as action/install.sh builds it from source.
var exe string

var _ = BeforeSuite(func() {
	var err error
	root, err = filepath.Abs("..")
	Expect(err).NotTo(HaveOccurred())

	// The install step as a runner runs it: RUNNER_TEMP, GITHUB_OUTPUT and
	// GITHUB_PATH are files and folders of the job.
	tmp := GinkgoT().TempDir()
	ghOutput := filepath.Join(tmp, "output")
	ghPath := filepath.Join(tmp, "path")
	res := runScript("install.sh", map[string]string{
		"GITHUB_ACTION_PATH": root, "RUNNER_TEMP": tmp,
		"GITHUB_OUTPUT": ghOutput, "GITHUB_PATH": ghPath, "INPUT_VERSION": "", "INPUT_FROM_SOURCE": "true",
	})
	Expect(res.code).To(Equal(0), "install.sh:\n%s", res.output)
	outputs := readOutputs(ghOutput)
	exe = outputs["bin"]
	Expect(exe).To(Equal(filepath.Join(tmp, "mcpconform-bin", "mcpconform")))
	Expect(exe).To(BeAnExistingFile())
	path, err := os.ReadFile(ghPath)
	Expect(err).NotTo(HaveOccurred())
	Expect(strings.TrimSpace(string(path))).To(Equal(filepath.Dir(exe)))
})
