package yamlline_test

import (
	"bytes"
	"errors"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.yaml.in/yaml/v3"

	"github.com/mcpconform/mcpconform/internal/yamlline"
)

func TestYAMLLine(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "yamlline")
}

func parse(doc string) error {
	var n yaml.Node
	err := yaml.NewDecoder(bytes.NewReader([]byte(doc))).Decode(&n)
	Expect(err).To(HaveOccurred())
	return yamlline.Fix([]byte(doc), err)
}

var _ = Describe("Fix", func() {
	DescribeTable("names the line the error is on",
		func(doc string, line int) {
			var e *yamlline.Error
			Expect(errors.As(parse(doc), &e)).To(BeTrue())
			Expect(e.Line).To(Equal(line), e.Error())
		},
		// The parser says line 1 here: where the list began.
		Entry("a broken list item", "server:\n  - ping\n  - tools-list\n  -: [\n", 4),
		// The parser says line 3 here.
		Entry("a tab in the indentation", "server:\n  - ping\n  - tools-list\n\t- x\n", 4),
		Entry("an unclosed quote", "server:\n  - ping\n  - tools-list\n  - \"unclosed\n", 4),
		Entry("a mapping value in a scalar", "server:\n  - ping\nclient: foo: bar\n", 3),
		Entry("the first line", "[\n", 1),
	)

	It("leaves an error that is not a syntax error alone", func() {
		other := errors.New("yaml: unmarshal errors:\n  line 4: field x not found")
		Expect(yamlline.Fix([]byte("a: 1\n"), other)).To(BeIdenticalTo(other))
	})
})
