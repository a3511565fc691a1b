package reports_test

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpconform/mcpconform/reports"
)

// schemaPath is the checked-in JSON Schema of results.json, the format's
// documentation for tools that read it.
var schemaPath = filepath.Join("..", "docs", "results.schema.json")

// resultsSchema compiles docs/results.schema.json with formats asserted
// (date-time is only an annotation in 2020-12 unless asked for).
func resultsSchema() *jsonschema.Schema {
	GinkgoHelper()
	raw, err := os.ReadFile(schemaPath)
	Expect(err).NotTo(HaveOccurred())
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	Expect(err).NotTo(HaveOccurred())
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	const url = "results.schema.json"
	Expect(c.AddResource(url, doc)).To(Succeed())
	s, err := c.Compile(url)
	Expect(err).NotTo(HaveOccurred())
	return s
}

func validateResults(s *jsonschema.Schema, data []byte) error {
	GinkgoHelper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	Expect(err).NotTo(HaveOccurred())
	return s.Validate(doc)
}

// fullRun is sampleRun with what sampleRun leaves out: an interrupt, a
// check that quotes its sentence and names a design note as its source, and
// a failure an expected-failures baseline lists beside one it does not.
func fullRun() *reports.Run {
	r := sampleRun()
	r.Interrupted = "SIGINT"
	r.Strict = true
	r.Shard = "2/3"
	r.Scenarios[0].Checks[1].Quote = "The server MUST respond with its own capabilities."
	r.Scenarios[0].Checks[1].Source = "SEP-1686 §8.1"
	r.Scenarios[0].Checks[1].Expected = true
	r.Scenarios[0].Checks[1].ExpectedBy = "lifecycle-initialize/capabilities-object (expected.yaml)"
	r.Scenarios[2].Checks = append(r.Scenarios[2].Checks, reports.Check{
		ID: "transport-stdio-newline/utf8", Title: "Messages are UTF-8", Level: "MUST",
		SpecRef: "2025-06-18/basic/transports.mdx#stdio", Status: reports.Failed,
		Message: "Expected: UTF-8\nActual: \\xff",
	})
	return r
}

// jsonKeys collects every object member name in v, by the path of the
// object holding it ("", "counts", "scenarios[]", "scenarios[].checks[]").
func jsonKeys(v any, at string, into map[string]map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		if into[at] == nil {
			into[at] = map[string]bool{}
		}
		for k, e := range x {
			into[at][k] = true
			jsonKeys(e, strings.TrimPrefix(at+"."+k, "."), into)
		}
	case []any:
		for _, e := range x {
			jsonKeys(e, at+"[]", into)
		}
	}
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

var _ = Describe("results.json schema", func() {
	var schema *jsonschema.Schema
	BeforeEach(func() { schema = resultsSchema() })

	It("accepts the golden results.json", func() {
		golden, err := os.ReadFile(filepath.Join("testdata", "golden.results.json"))
		Expect(err).NotTo(HaveOccurred())
		Expect(validateResults(schema, golden)).To(Succeed())
	})

	It("accepts what the writer writes: every status, every optional field, runs over several transports and versions, an empty run", func() {
		full := renderJSON(fullRun())
		// The fixture must really exercise what the schema constrains.
		for _, want := range []string{`"passed"`, `"failed"`, `"warning"`, `"skipped"`, `"error"`, `"outcome": "expected"`,
			`"interruptedBy"`, `"quote"`, `"source"`, `"message"`, `"transcript"`, `"stderr"`, `"started"`,
			`"expected": true`, `"expectedBy"`, `"expected": 1`, `"reason": "deadline"`} {
			Expect(string(full)).To(ContainSubstring(want))
		}
		Expect(validateResults(schema, full)).To(Succeed())
		Expect(validateResults(schema, renderJSON(sampleRun()))).To(Succeed())
		Expect(validateResults(schema, renderJSON(multiRun()))).To(Succeed())
		empty := &reports.Run{Side: "client", Transport: "stdio", SpecVersion: "2025-11-25"}
		Expect(validateResults(schema, renderJSON(empty))).To(Succeed())
	})

	It("describes exactly the members the writer writes", func() {
		// The writer's members, by object: from a run that sets every field.
		var doc any
		Expect(json.Unmarshal(renderJSON(fullRun()), &doc)).To(Succeed())
		written := map[string]map[string]bool{}
		jsonKeys(doc, "", written)

		var sch map[string]any
		raw, err := os.ReadFile(schemaPath)
		Expect(err).NotTo(HaveOccurred())
		Expect(json.Unmarshal(raw, &sch)).To(Succeed())
		defs := sch["$defs"].(map[string]any)
		props := func(obj map[string]any) []string {
			var out []string
			for k := range obj["properties"].(map[string]any) {
				out = append(out, k)
			}
			sort.Strings(out)
			return out
		}
		described := map[string][]string{
			"":                     props(sch),
			"counts":               props(defs["counts"].(map[string]any)),
			"scenarios[]":          props(defs["scenario"].(map[string]any)),
			"scenarios[].counts":   props(defs["counts"].(map[string]any)),
			"scenarios[].checks[]": props(defs["check"].(map[string]any)),
		}
		Expect(slices.Sorted(maps.Keys(written))).To(Equal(slices.Sorted(maps.Keys(described))))
		for at, names := range described {
			Expect(sortedKeys(written[at])).To(Equal(names), "members of %q: writer vs docs/results.schema.json", at)
		}
	})

	It("pins the format version the writer writes", func() {
		var sch struct {
			Properties struct {
				FormatVersion struct {
					Const int `json:"const"`
				} `json:"formatVersion"`
			} `json:"properties"`
		}
		raw, err := os.ReadFile(schemaPath)
		Expect(err).NotTo(HaveOccurred())
		Expect(json.Unmarshal(raw, &sch)).To(Succeed())
		Expect(sch.Properties.FormatVersion.Const).To(Equal(reports.JSONFormatVersion))
	})

	// Each broken document differs from a valid one by one edit, so the
	// refusal is that edit's.
	DescribeTable("refuses a broken document",
		func(edit func(doc map[string]any), mentions string) {
			var doc map[string]any
			Expect(json.Unmarshal(renderJSON(fullRun()), &doc)).To(Succeed())
			edit(doc)
			data, err := json.Marshal(doc)
			Expect(err).NotTo(HaveOccurred())
			err = validateResults(schema, data)
			Expect(err).To(HaveOccurred())
			Expect(err.Error()).To(ContainSubstring(mentions))
		},
		Entry("another format version", func(d map[string]any) { d["formatVersion"] = 2 }, "formatVersion"),
		Entry("counts missing", func(d map[string]any) { delete(d, "counts") }, "counts"),
		Entry("an unknown member", func(d map[string]any) { d["verdict"] = "ok" }, "verdict"),
		Entry("an unknown outcome", func(d map[string]any) { d["outcome"] = "green" }, "outcome"),
		Entry("interruptedBy on a run that was not interrupted", func(d map[string]any) { d["interrupted"] = false }, "interrupted"),
		Entry("a start time that is not RFC 3339", func(d map[string]any) { d["started"] = "yesterday" }, "started"),
		Entry("a bogus check status", func(d map[string]any) {
			check(d, 0, 0)["status"] = "flaky"
		}, "status"),
		Entry("a lower-case level", func(d map[string]any) {
			check(d, 0, 0)["level"] = "must"
		}, "level"),
		Entry("a negative duration", func(d map[string]any) {
			check(d, 0, 1)["durationMs"] = -1
		}, "durationMs"),
		Entry("a check without its spec reference", func(d map[string]any) {
			delete(check(d, 0, 1), "specRef")
		}, "specRef"),
		Entry("a scenario on an unknown transport", func(d map[string]any) {
			d["scenarios"].([]any)[0].(map[string]any)["transport"] = "carrier-pigeon"
		}, "transport"),
		Entry("an expected mark on a check that passed", func(d map[string]any) {
			check(d, 0, 0)["expected"] = true
		}, "status"),
		Entry("expectedBy without the expected mark", func(d map[string]any) {
			delete(check(d, 0, 1), "expected")
		}, "expected"),
		Entry("a check status of \"expected\" (only runs and scenarios have that outcome)", func(d map[string]any) {
			check(d, 0, 1)["status"] = "expected"
		}, "status"),
		Entry("an unknown kind of reason", func(d map[string]any) {
			check(d, 1, 1)["reason"] = "bad-luck"
		}, "reason"),
		Entry("a kind of reason on a check that passed", func(d map[string]any) {
			check(d, 0, 0)["reason"] = "deadline"
		}, "status"),
		Entry("a count that is not an integer", func(d map[string]any) {
			d["counts"].(map[string]any)["failed"] = 1.5
		}, "failed"),
	)
})

// check is check j of scenario i of a decoded results.json.
func check(doc map[string]any, i, j int) map[string]any {
	sc := doc["scenarios"].([]any)[i].(map[string]any)
	return sc["checks"].([]any)[j].(map[string]any)
}
