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
		Expect(doc).To(HaveKeyWithValue("outcome", "failed"))
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
		// The writer resolves each scenario's side, transport and spec
		// version against the run's.
		for i := range r.Scenarios {
			s := &r.Scenarios[i]
			if s.Side == "" {
				s.Side = r.Side
			}
			if s.Transport == "" {
				s.Transport = r.Transport
			}
			if s.SpecVersion == "" {
				s.SpecVersion = r.SpecVersion
			}
		}
		Expect(back).To(Equal(r))

		multi := multiRun()
		back, err = reports.ReadJSON(bytes.NewReader(renderJSON(multi)))
		Expect(err).NotTo(HaveOccurred())
		Expect(back).To(Equal(multi))
	})

	It("gives every scenario its side, transport and spec version", func() {
		var doc struct {
			Scenarios []map[string]any
		}
		r := multiRun()
		Expect(json.Unmarshal(renderJSON(r), &doc)).To(Succeed())
		Expect(doc.Scenarios).To(HaveLen(len(r.Scenarios)))
		for i, sc := range doc.Scenarios {
			Expect(sc).To(HaveKeyWithValue("id", r.Scenarios[i].ID))
			Expect(sc).To(HaveKeyWithValue("side", "server"))
			Expect(sc).To(HaveKeyWithValue("transport", r.Scenarios[i].Transport))
			Expect(sc).To(HaveKeyWithValue("specVersion", r.Scenarios[i].SpecVersion))
		}
		Expect(doc.Scenarios[9]).To(HaveKeyWithValue("transport", "http"))
		Expect(doc.Scenarios[9]).To(HaveKeyWithValue("specVersion", "2025-11-25"))
		Expect(doc.Scenarios[9]).To(HaveKeyWithValue("outcome", "failed"))
	})

	It("writes an unknown transport as empty rather than the run's list", func() {
		r := multiRun()
		r.Scenarios[0].Transport = ""
		r.Scenarios[0].SpecVersion = ""
		var doc struct {
			Scenarios []map[string]any
		}
		Expect(json.Unmarshal(renderJSON(r), &doc)).To(Succeed())
		Expect(doc.Scenarios[0]).To(HaveKeyWithValue("transport", ""))
		Expect(doc.Scenarios[0]).To(HaveKeyWithValue("specVersion", ""))
		Expect(doc.Scenarios[0]).To(HaveKeyWithValue("side", "server"))
	})

	It("reads a file from before scenarios had side and transport, each scenario then saying the run's", func() {
		old := `{"formatVersion": 1, "side": "server", "transport": "http", "specVersion": "2025-11-25",
			"scenarios": [{"id": "lifecycle-ping", "family": "lifecycle", "specVersion": "2025-11-25",
			"checks": [{"id": "lifecycle-ping/empty-result", "status": "passed"}]}]}`
		r, err := reports.ReadJSON(strings.NewReader(old))
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Scenarios[0].Side).To(Equal("server"))
		Expect(r.Scenarios[0].Transport).To(Equal("http"))
		Expect(string(renderJUnit(r))).To(ContainSubstring(`classname="mcpconform.server.http.2025-11-25.lifecycle.lifecycle-ping"`))
	})

	It("reads an unknown check status as the error every writer shows, once, where it reads", func() {
		in := `{"formatVersion": 1, "side": "server", "transport": "http", "specVersion": "2025-11-25",
			"scenarios": [{"id": "s", "checks": [{"id": "s/c", "status": "flaky", "reason": "not-judged", "message": "m"}]}]}`
		r, err := reports.ReadJSON(strings.NewReader(in))
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Scenarios[0].Checks[0]).To(Equal(reports.Check{ID: "s/c", Status: reports.Errored, Reason: reports.ReasonHarness,
			Message: "reports: check has unknown status \"flaky\"\nm"}))
	})

	It("refuses an unknown format version", func() {
		_, err := reports.ReadJSON(strings.NewReader(`{"formatVersion": 99}`))
		Expect(err).To(MatchError(ContainSubstring("formatVersion")))
	})

	It("rejects a nil run", func() {
		Expect(reports.WriteJSON(io.Discard, nil)).To(HaveOccurred())
	})
})
