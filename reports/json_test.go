package reports_test

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/reports"
)

func renderJSON(r *reports.Run) []byte {
	GinkgoHelper()
	var buf bytes.Buffer
	Expect(reports.WriteJSON(&buf, r)).To(Succeed())
	return buf.Bytes()
}

var _ = Describe("WriteJSON", func() {
	It("matches the golden file", func() {
		expectGolden("golden.results.json", renderJSON(sampleRun()))
	})

	It("uses lower-camel names, milliseconds and counts", func() {
		var doc map[string]any
		Expect(json.Unmarshal(renderJSON(sampleRun()), &doc)).To(Succeed())
		Expect(doc).To(HaveKeyWithValue("tool", "mcpconform"))
		Expect(doc).To(HaveKeyWithValue("specVersion", "2025-11-25"))
		Expect(doc).To(HaveKeyWithValue("durationMs", 1234.567))
		Expect(doc).To(HaveKeyWithValue("started", "2026-01-02T03:04:05Z"))
		Expect(doc).To(HaveKeyWithValue("outcome", "error"))
		Expect(doc["counts"]).To(Equal(map[string]any{
			"passed": 1.0, "failed": 1.0, "warning": 2.0, "skipped": 1.0, "errored": 1.0, "total": 6.0,
		}))
		sc := doc["scenarios"].([]any)[0].(map[string]any)
		Expect(sc).To(HaveKeyWithValue("durationMs", 120.0))
		Expect(sc).To(HaveKeyWithValue("outcome", "failed"))
		ck := sc["checks"].([]any)[0].(map[string]any)
		Expect(ck).To(HaveKeyWithValue("specRef", "2025-11-25/basic/lifecycle.mdx#version-negotiation"))
		Expect(ck).To(HaveKeyWithValue("durationMs", 1.5))
		Expect(ck).To(HaveKeyWithValue("status", "passed"))
	})

	It("writes empty lists as [] rather than null", func() {
		out := string(renderJSON(&reports.Run{Scenarios: []reports.Scenario{{ID: "a"}}}))
		Expect(out).To(ContainSubstring(`"scenarios": [`))
		Expect(out).To(ContainSubstring(`"checks": []`))
		Expect(out).NotTo(ContainSubstring("null"))
	})

	It("stays valid JSON with garbage in the transcript", func() {
		r := sampleRun()
		r.Scenarios[0].Transcript = garbage
		Expect(json.Valid(renderJSON(r))).To(BeTrue())
	})

	It("round-trips through ReadJSON", func() {
		r := sampleRun()
		back, err := reports.ReadJSON(bytes.NewReader(renderJSON(r)))
		Expect(err).NotTo(HaveOccurred())
		// The writer resolves each scenario's spec version against the run's.
		for i := range r.Scenarios {
			if r.Scenarios[i].SpecVersion == "" {
				r.Scenarios[i].SpecVersion = r.SpecVersion
			}
		}
		Expect(back).To(Equal(r))
	})

	It("refuses an unknown format version", func() {
		_, err := reports.ReadJSON(strings.NewReader(`{"formatVersion": 99}`))
		Expect(err).To(MatchError(ContainSubstring("formatVersion")))
	})

	It("rejects a nil run", func() {
		Expect(reports.WriteJSON(io.Discard, nil)).To(HaveOccurred())
	})
})
