package main_test

import (
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"

	"github.com/mcpconform/mcpconform/internal/ahead"
	"github.com/mcpconform/mcpconform/internal/testprogress"
)

func TestMcpconform(t *testing.T) {
	RegisterFailHandler(Fail)
	// This suite runs for minutes: under go test -json (the README's test
	// command) it says how far it is while it runs (testprogress).
	pool.RunSpecs(t, "cmd/mcpconform", testprogress.Register)
}

// The specs run one after another, and many of them mostly wait on
// processes (a stalling target, a self-test): pool makes those runs ahead
// of their specs, aheadWidth units at once (internal/ahead).
const aheadWidth = 8

var pool = ahead.New(aheadWidth)

// exe is the mcpconform binary under test, built once.
var exe string

var _ = BeforeSuite(func() {
	var err error
	exe, err = gexec.Build("github.com/mcpconform/mcpconform/cmd/mcpconform")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(gexec.CleanupBuildArtifacts)
	// Cleanups run last first: the pool's work ends before the binaries go.
	DeferCleanup(pool.End)
	pool.Begin()
})

// exitWithin bounds how long one invocation may take.
const exitWithin = 60 * time.Second

// start runs the binary with args; a process still running at the end of the
// spec is killed (by its own pid) and reaped.
func start(cmd *exec.Cmd) *gexec.Session {
	GinkgoHelper()
	s, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() {
		s.Kill()
		Eventually(s).WithTimeout(exitWithin).Should(gexec.Exit())
	})
	return s
}

// run runs `mcpconform args...` and waits for it to exit with code.
func run(code int, args ...string) *gexec.Session {
	GinkgoHelper()
	s := start(exec.Command(exe, args...))
	Eventually(s).WithTimeout(exitWithin).Should(gexec.Exit(), "mcpconform %v did not exit", args)
	Expect(s.ExitCode()).To(Equal(code), "mcpconform %v\nstdout:\n%s\nstderr:\n%s", args, s.Out.Contents(), s.Err.Contents())
	return s
}

// JUnit as README.md describes it.
type junitDoc struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Failures   int             `xml:"failures,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
	SystemOut  string          `xml:"system-out"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// property reads a testsuite property ("scenario", "transport", …).
func (s junitSuite) property(name string) string {
	for _, p := range s.Properties {
		if p.Name == name {
			return p.Value
		}
	}
	return ""
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitProblem `xml:"failure"`
	Error     *junitProblem `xml:"error"`
	Skipped   *junitProblem `xml:"skipped"`
	SystemOut string        `xml:"system-out"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// readJUnit parses DIR/junit.xml with encoding/xml.
func readJUnit(dir string) junitDoc {
	GinkgoHelper()
	b, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
	Expect(err).NotTo(HaveOccurred(), "junit.xml is written")
	var doc junitDoc
	Expect(xml.Unmarshal(b, &doc)).To(Succeed())
	return doc
}

// cases lists every testcase of the document.
func (d junitDoc) cases() []junitCase {
	var out []junitCase
	for _, s := range d.Suites {
		out = append(out, s.Cases...)
	}
	return out
}

// failed lists the testcases that carry a <failure>.
func (d junitDoc) failed() []junitCase {
	var out []junitCase
	for _, c := range d.cases() {
		if c.Failure != nil {
			out = append(out, c)
		}
	}
	return out
}
