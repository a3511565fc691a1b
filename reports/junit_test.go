package reports_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os/exec"
	"strings"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/reports"
)

// Independent mirror of the JUnit shape, so the test does not trust the
// writer's own structs.
type (
	xSuites struct {
		XMLName   xml.Name `xml:"testsuites"`
		Name      string   `xml:"name,attr"`
		Tests     int      `xml:"tests,attr"`
		Failures  int      `xml:"failures,attr"`
		Errors    int      `xml:"errors,attr"`
		Skipped   int      `xml:"skipped,attr"`
		Time      string   `xml:"time,attr"`
		Timestamp string   `xml:"timestamp,attr"`
		Suites    []xSuite `xml:"testsuite"`
	}
	xSuite struct {
		Name       string      `xml:"name,attr"`
		Tests      int         `xml:"tests,attr"`
		Failures   int         `xml:"failures,attr"`
		Errors     int         `xml:"errors,attr"`
		Skipped    int         `xml:"skipped,attr"`
		Time       string      `xml:"time,attr"`
		Timestamp  string      `xml:"timestamp,attr"`
		Properties []xProperty `xml:"properties>property"`
		Cases      []xCase     `xml:"testcase"`
		SystemOut  *string     `xml:"system-out"`
		SystemErr  *string     `xml:"system-err"`
	}
	xCase struct {
		Name       string      `xml:"name,attr"`
		Classname  string      `xml:"classname,attr"`
		Time       string      `xml:"time,attr"`
		Properties []xProperty `xml:"properties>property"`
		Failure    *xProblem   `xml:"failure"`
		Error      *xProblem   `xml:"error"`
		Skipped    *xProblem   `xml:"skipped"`
		SystemOut  *string     `xml:"system-out"`
	}
	xProperty struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	xProblem struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
)

// prop returns the named property's value, or "<absent>".
func prop(ps []xProperty, name string) string {
	for _, p := range ps {
		if p.Name == name {
			return p.Value
		}
	}
	return "<absent>"
}

func renderJUnit(r *reports.Run) []byte {
	GinkgoHelper()
	var buf bytes.Buffer
	Expect(reports.WriteJUnit(&buf, r)).To(Succeed())
	return buf.Bytes()
}

// expectWellFormed walks every token: Go's decoder rejects illegal
// characters, invalid UTF-8 and broken CDATA.
func expectWellFormed(doc []byte) {
	GinkgoHelper()
	Expect(utf8.Valid(doc)).To(BeTrue(), "document is not valid UTF-8")
	d := xml.NewDecoder(bytes.NewReader(doc))
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			return
		}
		Expect(err).NotTo(HaveOccurred(), "not well-formed XML:\n%s", doc)
	}
}

func parseJUnit(doc []byte) xSuites {
	GinkgoHelper()
	expectWellFormed(doc)
	var s xSuites
	Expect(xml.Unmarshal(doc, &s)).To(Succeed())
	return s
}

var _ = Describe("WriteJUnit", func() {
	It("matches the golden file", func() {
		expectGolden("golden.junit.xml", renderJUnit(sampleRun()))
	})

	It("is deterministic", func() {
		Expect(renderJUnit(sampleRun())).To(Equal(renderJUnit(sampleRun())))
	})

	It("parses back with counts that agree with Run.Counts", func() {
		r := sampleRun()
		got := parseJUnit(renderJUnit(r))
		c := r.Counts()

		Expect(got.Name).NotTo(BeEmpty())
		Expect(got.Tests).To(Equal(c.Total))
		Expect(got.Failures).To(Equal(c.Failed))
		Expect(got.Errors).To(Equal(c.Errored))
		Expect(got.Skipped).To(Equal(c.Skipped))
		Expect(got.Time).To(Equal("1.235"))
		Expect(got.Timestamp).To(Equal("2026-01-02T03:04:05"))
		Expect(got.Suites).To(HaveLen(len(r.Scenarios)))

		var tests, failures, errs, skipped int
		for i, s := range got.Suites {
			sc := r.Scenarios[i]
			Expect(prop(s.Properties, "scenario")).To(Equal(sc.ID))
			Expect(s.Cases).To(HaveLen(len(sc.Checks)))
			Expect(s.Tests).To(Equal(len(s.Cases)))
			nf, ne, ns := 0, 0, 0
			for _, tc := range s.Cases {
				if tc.Failure != nil {
					nf++
				}
				if tc.Error != nil {
					ne++
				}
				if tc.Skipped != nil {
					ns++
				}
			}
			Expect([]int{s.Failures, s.Errors, s.Skipped}).To(Equal([]int{nf, ne, ns}), "suite %s", s.Name)
			tests += s.Tests
			failures += s.Failures
			errs += s.Errors
			skipped += s.Skipped
		}
		Expect([]int{tests, failures, errs, skipped}).To(Equal([]int{c.Total, c.Failed, c.Errored, c.Skipped}))
	})

	It("gives every testcase a name and a classname of side, transport, version, family and scenario", func() {
		r := sampleRun()
		r.Scenarios[0].Family = "" // falls back to a placeholder, never an empty segment
		r.Scenarios[1].Family = "tools/list v2"
		got := parseJUnit(renderJUnit(r))
		for i, s := range got.Suites {
			for j, tc := range s.Cases {
				Expect(tc.Name).To(Equal(r.Scenarios[i].Checks[j].ID))
				Expect(tc.Classname).NotTo(ContainSubstring("/"))
				Expect(strings.Split(tc.Classname, ".")).To(HaveLen(6), tc.Classname)
				Expect(tc.Classname).To(HavePrefix("mcpconform.server.stdio."))
				Expect(tc.Classname).To(HaveSuffix("." + r.Scenarios[i].ID))
			}
		}
		Expect(got.Suites[0].Cases[0].Classname).To(Equal("mcpconform.server.stdio.2025-11-25.unknown.lifecycle-initialize"))
		Expect(got.Suites[1].Cases[0].Classname).To(Equal("mcpconform.server.stdio.2025-11-25.tools-list-v2.tools-list"))
		Expect(got.Suites[2].Cases[0].Classname).To(Equal("mcpconform.server.stdio.2025-06-18.transport.transport-stdio-newline"))
		Expect(got.Suites[0].Name).To(Equal("server stdio 2025-11-25 lifecycle-initialize"))
		Expect(got.Suites[2].Name).To(Equal("server stdio 2025-06-18 transport-stdio-newline"))
	})

	It("keeps (classname, name) unique over several transports and versions", func() {
		r := multiRun()
		got := parseJUnit(renderJUnit(r))
		Expect(got.Suites).To(HaveLen(len(multiTransports) * len(multiVersions) * 3))

		type key struct{ classname, name string }
		seen := map[key]bool{}
		suiteNames := map[string]bool{}
		checkIDs := map[string]bool{}
		for _, s := range got.Suites {
			suiteNames[s.Name] = true
			for _, tc := range s.Cases {
				k := key{tc.Classname, tc.Name}
				Expect(seen).NotTo(HaveKey(k), "duplicate testcase %v", k)
				seen[k] = true
				checkIDs[tc.Name] = true
			}
		}
		Expect(seen).To(HaveLen(r.Counts().Total))
		Expect(checkIDs).To(HaveLen(4), "the same checks recur on every transport and version")
		Expect(suiteNames).To(HaveLen(len(got.Suites)))

		var failed []xCase
		for _, s := range got.Suites {
			for _, tc := range s.Cases {
				if tc.Failure != nil {
					failed = append(failed, tc)
				}
			}
		}
		Expect(failed).To(HaveLen(1))
		Expect(failed[0].Classname).To(Equal("mcpconform.server.http.2025-11-25.lifecycle.lifecycle-ping"))
		Expect(failed[0].Name).To(Equal("lifecycle-ping/empty-result"))
	})

	It("names side, transport and version in each testsuite's name and properties", func() {
		r := multiRun()
		got := parseJUnit(renderJUnit(r))
		for i, s := range got.Suites {
			sc := r.Scenarios[i]
			Expect(s.Name).To(Equal("server " + sc.Transport + " " + sc.SpecVersion + " " + sc.ID))
			Expect(prop(s.Properties, "scenario")).To(Equal(sc.ID))
			Expect(prop(s.Properties, "side")).To(Equal("server"))
			Expect(prop(s.Properties, "transport")).To(Equal(sc.Transport))
			Expect(prop(s.Properties, "specVersion")).To(Equal(sc.SpecVersion))
		}
		Expect(got.Suites[9].Name).To(Equal("server http 2025-11-25 lifecycle-ping"))
	})

	It("leaves out what neither the scenario nor the run can tell", func() {
		r := multiRun()
		for i := range r.Scenarios {
			r.Scenarios[i].Side = ""
			r.Scenarios[i].Transport = ""
		}
		r.Scenarios[0].SpecVersion = "" // the run lists two versions: unknown
		r.Scenarios[1].SpecVersion = "1.0"
		got := parseJUnit(renderJUnit(r))
		Expect(got.Suites[0].Cases[0].Classname).To(Equal("mcpconform.server.lifecycle.lifecycle-ping"))
		Expect(got.Suites[0].Name).To(Equal("server lifecycle-ping"))
		Expect(prop(got.Suites[0].Properties, "transport")).To(Equal(""))
		Expect(prop(got.Suites[0].Properties, "specVersion")).To(Equal(""))
		Expect(got.Suites[1].Cases[0].Classname).To(Equal("mcpconform.server.1.0.lifecycle.lifecycle-initialize"), "a version keeps its dots")
	})

	It("numbers a scenario that recurs in the same classname instead of merging it", func() {
		// A producer that does not fill Transport on a run over three
		// transports: side and version alone repeat.
		r := multiRun()
		for i := range r.Scenarios {
			r.Scenarios[i].Transport = ""
		}
		got := parseJUnit(renderJUnit(r))
		type key struct{ classname, name string }
		seen := map[key]bool{}
		for _, s := range got.Suites {
			for _, tc := range s.Cases {
				Expect(seen).NotTo(HaveKey(key{tc.Classname, tc.Name}))
				seen[key{tc.Classname, tc.Name}] = true
			}
		}
		Expect(seen).To(HaveLen(r.Counts().Total))
		// Order: stdio 06-18, stdio 11-25, http 06-18, http 11-25, ...
		Expect(got.Suites[0].Cases[0].Classname).To(Equal("mcpconform.server.2025-06-18.lifecycle.lifecycle-ping"))
		Expect(got.Suites[6].Cases[0].Classname).To(Equal("mcpconform.server.2025-06-18.lifecycle.lifecycle-ping-run2"))
		Expect(got.Suites[6].Name).To(Equal("server 2025-06-18 lifecycle-ping (run 2)"))
		Expect(got.Suites[12].Cases[0].Classname).To(Equal("mcpconform.server.2025-06-18.lifecycle.lifecycle-ping-run3"))
	})

	It("maps each status to the right JUnit element", func() {
		got := parseJUnit(renderJUnit(sampleRun()))
		init := got.Suites[0]

		passed := init.Cases[0]
		Expect(passed.Failure).To(BeNil())
		Expect(passed.Error).To(BeNil())
		Expect(passed.Skipped).To(BeNil())
		Expect(passed.Time).To(Equal("0.002"))
		Expect(prop(passed.Properties, "level")).To(Equal("MUST"))
		Expect(prop(passed.Properties, "spec")).To(Equal("2025-11-25/basic/lifecycle.mdx#version-negotiation"))
		Expect(prop(passed.Properties, "title")).To(Equal("Server answers with a protocol version it supports"))

		failed := init.Cases[1]
		Expect(failed.Failure).NotTo(BeNil())
		Expect(failed.Error).To(BeNil())
		Expect(failed.Failure.Message).To(Equal("Expected: result.capabilities to be an object"))
		Expect(failed.Failure.Type).To(Equal("MUST"))
		Expect(failed.Failure.Text).To(Equal("Expected: result.capabilities to be an object\nActual: null"))

		warned := init.Cases[2]
		Expect(warned.Failure).To(BeNil(), "a SHOULD warning must not fail a JUnit gate")
		Expect(warned.Error).To(BeNil())
		Expect(warned.Skipped).To(BeNil())
		Expect(prop(warned.Properties, "outcome")).To(Equal("warning"))
		Expect(warned.SystemOut).NotTo(BeNil())
		Expect(*warned.SystemOut).To(Equal("WARNING (SHOULD): Expected: serverInfo.name to be non-empty\nActual: \"\""))

		tools := got.Suites[1]
		Expect(tools.Cases[0].Skipped).NotTo(BeNil())
		Expect(tools.Cases[0].Skipped.Message).To(Equal("server does not advertise the tools capability"))
		Expect(tools.Cases[1].Error).NotTo(BeNil())
		Expect(tools.Cases[1].Failure).To(BeNil())
		Expect(tools.Cases[1].Error.Message).To(Equal("harness: deadline exceeded after 5s"))
	})

	It("puts scenario metadata in testsuite properties and the transcript in system-out", func() {
		r := sampleRun()
		got := parseJUnit(renderJUnit(r))
		init := got.Suites[0]
		Expect(prop(init.Properties, "scenario")).To(Equal("lifecycle-initialize"))
		Expect(prop(init.Properties, "side")).To(Equal("server"))
		Expect(prop(init.Properties, "specVersion")).To(Equal("2025-11-25"))
		Expect(prop(init.Properties, "family")).To(Equal("lifecycle"))
		Expect(prop(init.Properties, "transport")).To(Equal("stdio"))
		Expect(prop(init.Properties, "target")).To(Equal("stdio: ./srv --flag"))
		Expect(init.Timestamp).To(Equal("2026-01-02T03:04:05"))
		Expect(init.Time).To(Equal("0.120"))
		Expect(init.SystemOut).NotTo(BeNil())
		// "]]>" in the transcript survives the CDATA split intact.
		Expect(*init.SystemOut).To(Equal(r.Scenarios[0].Transcript))
		Expect(init.SystemErr).NotTo(BeNil())
		Expect(*init.SystemErr).To(Equal("srv: listening on stdio\n"))

		// A scenario without its own side, transport, spec version or start
		// uses the run's.
		Expect(prop(got.Suites[1].Properties, "side")).To(Equal("server"))
		Expect(prop(got.Suites[1].Properties, "transport")).To(Equal("stdio"))
		Expect(prop(got.Suites[1].Properties, "specVersion")).To(Equal("2025-11-25"))
		Expect(got.Suites[1].Timestamp).To(Equal("2026-01-02T03:04:05"))
		Expect(got.Suites[1].SystemOut).To(BeNil())
		Expect(prop(got.Suites[2].Properties, "specVersion")).To(Equal("2025-06-18"))
	})

	It("stays well-formed when the target floods garbage everywhere", func() {
		r := sampleRun()
		s := &r.Scenarios[0]
		s.Transcript = garbage
		s.Stderr = garbage
		s.Title = garbage
		s.Checks[0].Title = garbage
		s.Checks[1].Message = garbage + "\nsecond line " + garbage
		s.Checks[2].Message = garbage
		r.Scenarios[1].Checks[0].Message = garbage
		r.Scenarios[1].Checks[1].Message = garbage
		r.Target = garbage

		doc := renderJUnit(r)
		got := parseJUnit(doc)

		out := *got.Suites[0].SystemOut
		Expect(out).To(ContainSubstring("start ]]> mid ]]]]> NUL"))
		Expect(out).To(ContainSubstring("ESCred bare"), "CSI sequences are removed whole")
		Expect(out).To(ContainSubstring("bad\uFFFD utf8 \uFFFD("), "each invalid run becomes one U+FFFD")
		Expect(out).To(ContainSubstring("ok-unicode é ✓ end"))
		Expect(out).NotTo(ContainSubstring("\x00"))
		Expect(out).NotTo(ContainSubstring("\x1b"))
		Expect(*got.Suites[0].SystemErr).To(Equal(out))
		Expect(got.Suites[0].Cases[1].Failure.Message).To(Equal(strings.TrimSpace(out)))
	})

	It("reports an unknown status as an error so it cannot pass silently", func() {
		r := &reports.Run{Side: "client", Scenarios: []reports.Scenario{{
			ID: "x", Family: "f",
			Checks: []reports.Check{{ID: "x/y", Status: "bogus", Level: "MUST"}},
		}}}
		got := parseJUnit(renderJUnit(r))
		Expect(got.Errors).To(Equal(1))
		Expect(got.Suites[0].Cases[0].Error).NotTo(BeNil())
		Expect(got.Suites[0].Cases[0].Error.Message).To(ContainSubstring(`unknown status "bogus"`))
		Expect(got.Suites[0].Cases[0].Classname).To(Equal("mcpconform.client.f.x"))
	})

	It("handles an empty run", func() {
		got := parseJUnit(renderJUnit(&reports.Run{}))
		Expect(got.Tests).To(Equal(0))
		Expect(got.Suites).To(BeEmpty())
		Expect(got.Timestamp).To(BeEmpty())
	})

	It("rejects a nil run", func() {
		Expect(reports.WriteJUnit(io.Discard, nil)).To(HaveOccurred())
	})

	It("passes xmllint", func() {
		xmllint, err := exec.LookPath("xmllint")
		if err != nil {
			Skip("xmllint not installed")
		}
		r := sampleRun()
		r.Scenarios[0].Transcript = garbage
		cmd := exec.Command(xmllint, "--noout", "-")
		cmd.Stdin = bytes.NewReader(renderJUnit(r))
		out, err := cmd.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
	})
})
