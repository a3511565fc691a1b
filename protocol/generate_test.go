package protocol_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

const generateDirective = "//go:generate go run ./internal/gen "

// generatorArgs returns the arguments of the go:generate line in
// generate.go, so the test runs exactly what `go generate` runs.
func generatorArgs() []string {
	f, err := os.Open("generate.go")
	Expect(err).NotTo(HaveOccurred())
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), generateDirective); ok {
			return strings.Fields(rest)
		}
	}
	Fail("no " + generateDirective + "line in generate.go")
	return nil
}

// flagValue returns the value of -name in args and its index.
func flagValue(args []string, name string) (string, int) {
	i := slices.Index(args, "-"+name)
	Expect(i).To(BeNumerically(">=", 0), "go:generate line has no -%s flag", name)
	Expect(len(args)).To(BeNumerically(">", i+1))
	return args[i+1], i + 1
}

var _ = Describe("generated wire types", func() {
	It("are what the generator produces from the MCP schemas", func(ctx SpecContext) {
		args := generatorArgs()
		spec, _ := flagValue(args, "spec")
		specDir, err := filepath.Abs(spec)
		Expect(err).NotTo(HaveOccurred())
		if _, err := os.Stat(specDir); err != nil {
			Skip("MCP schemas not found at " + specDir + " (../shared/mcp-spec beside the repository root); cannot check that the generated code is fresh")
		}
		// The generator runs in a subprocess, whose reads go test's result
		// cache does not see: read its inputs here so that a change to a
		// schema, the generator or go.mod (the go-jsonschema version)
		// invalidates a cached pass.
		inputs, err := filepath.Glob(filepath.Join("internal", "gen", "*.go"))
		Expect(err).NotTo(HaveOccurred())
		inputs = append(inputs, filepath.Join("..", "go.mod"))
		for _, arg := range args {
			if name, _, ok := strings.Cut(arg, "="); ok && !strings.HasPrefix(arg, "-") {
				inputs = append(inputs, filepath.Join(specDir, name, "schema.json"))
			}
		}
		for _, f := range inputs {
			_, err := os.ReadFile(f)
			Expect(err).NotTo(HaveOccurred())
		}

		goTool, err := exec.LookPath("go")
		Expect(err).NotTo(HaveOccurred(), "the go command is needed to run the generator")

		out := GinkgoT().TempDir()
		committed, i := flagValue(args, "out")
		args[i] = out
		cmd := exec.CommandContext(ctx, goTool, append([]string{"run", "./internal/gen"}, args...)...)
		output, err := cmd.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), "generator failed:\n%s", output)

		var packages []string
		for _, arg := range args {
			if _, pkg, ok := strings.Cut(arg, "="); ok && !strings.HasPrefix(arg, "-") {
				packages = append(packages, pkg)
			}
		}
		Expect(packages).NotTo(BeEmpty())
		for _, pkg := range packages {
			fresh, err := filepath.Glob(filepath.Join(out, pkg, "*.go"))
			Expect(err).NotTo(HaveOccurred())
			Expect(fresh).NotTo(BeEmpty(), "generator wrote nothing for %s", pkg)
			for _, f := range fresh {
				name := filepath.Join(committed, pkg, filepath.Base(f))
				want, err := os.ReadFile(f)
				Expect(err).NotTo(HaveOccurred())
				got, err := os.ReadFile(name)
				Expect(err).NotTo(HaveOccurred(), "%s is missing: run go generate ./protocol", name)
				Expect(string(got) == string(want)).To(BeTrue(), "%s is stale: run go generate ./protocol", name)
			}
			// No generated file may outlive its schema.
			old, err := filepath.Glob(filepath.Join(committed, pkg, "*_gen.go"))
			Expect(err).NotTo(HaveOccurred())
			for _, f := range old {
				_, err := os.Stat(filepath.Join(out, pkg, filepath.Base(f)))
				Expect(err).NotTo(HaveOccurred(), "%s is no longer generated", f)
			}
		}
	}, SpecTimeout(5*time.Minute))
})
