package reports_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/reports"
)

func parseBaseline(text string) *reports.Baseline {
	GinkgoHelper()
	b, err := reports.ParseBaseline([]byte(text), "base.yaml")
	Expect(err).NotTo(HaveOccurred())
	return b
}

func parseBaselineErr(text string) error {
	GinkgoHelper()
	_, err := reports.ParseBaseline([]byte(text), "base.yaml")
	Expect(err).To(HaveOccurred())
	return err
}

// pingRun is a server run of two scenarios over two transports at one
// version; statuses are set per test.
func pingRun() *reports.Run {
	sc := func(id, tr string, checks ...reports.Check) reports.Scenario {
		return reports.Scenario{ID: id, Family: "lifecycle", Side: "server", Transport: tr, SpecVersion: "2025-11-25", Checks: checks}
	}
	ck := func(id string, st reports.Status) reports.Check {
		return reports.Check{ID: id, Level: "MUST", Status: st, Message: "Expected: x\nActual: y"}
	}
	return &reports.Run{
		Side: "server", Transport: "stdio,http", SpecVersion: "2025-11-25", Started: fixtureStart,
		Scenarios: []reports.Scenario{
			sc("lifecycle-ping", "stdio", ck("lifecycle-ping/empty-result", reports.Failed)),
			sc("tools-list", "stdio", ck("tools-list/a", reports.Passed), ck("tools-list/b", reports.Failed)),
			sc("lifecycle-ping", "http", ck("lifecycle-ping/empty-result", reports.Failed)),
			sc("tools-list", "http", ck("tools-list/a", reports.Passed), ck("tools-list/b", reports.Passed)),
		},
	}
}

func checkOf(r *reports.Run, scenario int, id string) *reports.Check {
	GinkgoHelper()
	for j := range r.Scenarios[scenario].Checks {
		if c := &r.Scenarios[scenario].Checks[j]; c.ID == id {
			return c
		}
	}
	Fail("no check " + id)
	return nil
}

var _ = Describe("expected-failures baselines", func() {
	Describe("ParseBaseline", func() {
		It("reads the official shape: server and client lists of scenario and scenario:check ids", func() {
			b := parseBaseline("server:\n  - lifecycle-ping\n  - tools-list:b\nclient:\n  - client-initialize/initialize-first\n")
			Expect(b.Entries).To(HaveLen(3))
			Expect(b.Entries[0]).To(Equal(reports.BaselineEntry{Side: "server", ID: "lifecycle-ping", Line: 2}))
			Expect(b.Entries[0].IsCheck()).To(BeFalse())
			// The official colon form is the same as mcpconform's slash.
			Expect(b.Entries[1].ID).To(Equal("tools-list/b"))
			Expect(b.Entries[1].IsCheck()).To(BeTrue())
			Expect(b.Entries[1].Scenario()).To(Equal("tools-list"))
			Expect(b.Entries[2]).To(Equal(reports.BaselineEntry{Side: "client", ID: "client-initialize/initialize-first", Line: 5}))
		})

		It("reads entries limited to transports and versions, as one value or a list, beside plain ones", func() {
			b := parseBaseline(`server:
  - lifecycle-ping
  - id: tools-list/b
    transport: stdio
    specVersion: 2025-11-25
    reason: upstream issue 7
  - {id: tools-list/a, transport: [stdio, ws], specVersion: ["2025-06-18", "2025-11-25"]}
`)
			Expect(b.Entries).To(HaveLen(3))
			Expect(b.Entries[1]).To(Equal(reports.BaselineEntry{Side: "server", ID: "tools-list/b", Transports: []string{"stdio"},
				SpecVersions: []string{"2025-11-25"}, Reason: "upstream issue 7", Line: 3}))
			Expect(b.Entries[2].Transports).To(Equal([]string{"stdio", "ws"}))
			Expect(b.Entries[2].SpecVersions).To(Equal([]string{"2025-06-18", "2025-11-25"}))
			Expect(b.Entries[2].String()).To(Equal("tools-list/a (transport stdio, ws; spec 2025-06-18, 2025-11-25)"))
		})

		It("takes an empty file, a comment-only file and empty sections as an empty baseline", func() {
			for _, text := range []string{"", "# nothing yet\n", "server:\nclient: []\n"} {
				Expect(parseBaseline(text).Entries).To(BeEmpty(), "%q", text)
			}
		})

		DescribeTable("refuses a malformed file with where and why",
			func(text string, want ...string) {
				err := parseBaselineErr(text)
				for _, w := range want {
					Expect(err.Error()).To(ContainSubstring(w))
				}
			},
			Entry("not YAML", "server: [a\n", "base.yaml", "not valid YAML"),
			// The YAML parser alone names line 1, where the list began.
			Entry("not YAML on a later line", "server:\n  - ping\n  - tools-list\n  -: [\n", "base.yaml: not valid YAML: line 4:"),
			Entry("a list at the top", "- a\n", "base.yaml line 1", "server: and/or client:"),
			Entry("a misspelt side", "sever:\n  - a\n", "base.yaml line 1", `unknown key "sever"`),
			Entry("a side twice", "server: [a]\nserver: [b]\n", "line 2", "appears twice"),
			Entry("a side that is no list", "server: lifecycle-ping\n", "line 1", "must be a list"),
			Entry("an entry that is a list", "server:\n  - [a, b]\n", "line 2", "must be an id or a mapping"),
			Entry("a mapping without id", "server:\n  - transport: stdio\n", "line 2", "needs id:"),
			Entry("a mapping with only a reason", "server:\n  - reason: why\n", "line 2", "needs id:"),
			Entry("an unknown key in an entry", "server:\n  - id: a\n    transprot: stdio\n", "line 2", `unknown key "transprot"`),
			Entry("the official form with a space after the colon", "server:\n  - tools-list: b\n", "line 2", "'- tools-list:b'"),
			Entry("an empty transport list", "server:\n  - id: a\n    transport: []\n", "line 2", "transport: must not be empty"),
			Entry("an id with a space", "server:\n  - tools list\n", "line 2", "is not a scenario or scenario/check id"),
			Entry("an id with two slashes", "server:\n  - a/b/c\n", "line 2", "is not a scenario or scenario/check id"),
			Entry("an empty check", "server:\n  - a/\n", "line 2", "is not a scenario or scenario/check id"),
			Entry("two documents", "server: []\n---\nclient: []\n", "more than one YAML document"),
		)

		It("reports an unreadable file", func() {
			_, err := reports.LoadBaseline(filepath.Join(GinkgoT().TempDir(), "missing.yaml"))
			Expect(errors.Is(err, os.ErrNotExist)).To(BeTrue())
		})
	})

	Describe("Validate", func() {
		It("names the file and line of the first entry the caller refuses", func() {
			b := parseBaseline("server:\n  - lifecycle-ping\n  - no-such-scenario\n")
			err := b.Validate(func(e *reports.BaselineEntry) error {
				if e.ID == "no-such-scenario" {
					return errors.New(`unknown scenario or check id "no-such-scenario"`)
				}
				return nil
			})
			Expect(err).To(MatchError(`unknown scenario or check id "no-such-scenario" in base.yaml line 3`))
		})
	})

	Describe("Apply", func() {
		It("marks the failures an entry lists as expected: not counted as failed, an outcome of their own", func() {
			r := pingRun()
			applied := parseBaseline("server:\n  - lifecycle-ping/empty-result\n").Apply(r)
			Expect(applied.Expected).To(Equal(2))
			Expect(applied.Stale).To(BeEmpty())
			c := checkOf(r, 0, "lifecycle-ping/empty-result")
			Expect(c.Status).To(Equal(reports.Failed))
			Expect(c.Expected).To(BeTrue())
			Expect(c.ExpectedBy).To(Equal("lifecycle-ping/empty-result (base.yaml line 2)"))
			Expect(checkOf(r, 1, "tools-list/b").Expected).To(BeFalse())
			counts := r.Counts()
			Expect(counts.Failed).To(Equal(1)) // tools-list/b on stdio, not listed
			Expect(counts.Expected).To(Equal(2))
			Expect(counts.Total).To(Equal(6))
			Expect(r.Outcome()).To(Equal(reports.Failed))
			Expect(r.Scenarios[0].Counts().Outcome()).To(Equal(reports.ExpectedFailure))
		})

		It("lets a run whose every failure is expected come out as expected, not failed", func() {
			r := pingRun()
			parseBaseline("server:\n  - lifecycle-ping\n  - tools-list/b\n").Apply(r)
			Expect(r.Counts().Failed).To(Equal(0))
			Expect(r.Outcome()).To(Equal(reports.ExpectedFailure))
		})

		It("covers every check of a scenario with a scenario entry", func() {
			r := pingRun()
			applied := parseBaseline("server:\n  - tools-list\n").Apply(r)
			Expect(applied.Expected).To(Equal(1))
			Expect(checkOf(r, 1, "tools-list/b").Expected).To(BeTrue())
			// tools-list/b failed on stdio, so the entry is in use though it passed over http.
			Expect(applied.Stale).To(BeEmpty())
		})

		It("limits an entry to its transports and versions", func() {
			r := pingRun()
			applied := parseBaseline("server:\n  - id: lifecycle-ping/empty-result\n    transport: http\n").Apply(r)
			Expect(applied.Expected).To(Equal(1))
			Expect(checkOf(r, 0, "lifecycle-ping/empty-result").Expected).To(BeFalse()) // stdio
			Expect(checkOf(r, 2, "lifecycle-ping/empty-result").Expected).To(BeTrue())  // http

			r = pingRun()
			applied = parseBaseline("server:\n  - id: lifecycle-ping/empty-result\n    specVersion: 2025-06-18\n").Apply(r)
			Expect(applied.Expected).To(Equal(0))
			Expect(applied.Stale).To(BeEmpty(), "not judged at 2025-06-18 in this run")
		})

		It("does not match a scenario of the other side", func() {
			r := pingRun()
			applied := parseBaseline("client:\n  - lifecycle-ping\n").Apply(r)
			Expect(applied.Expected).To(Equal(0))
			Expect(applied.Stale).To(BeEmpty())
		})

		It("finds an entry stale when its checks ran and none failed, and says what to remove from where", func() {
			r := pingRun()
			applied := parseBaseline("server:\n  - lifecycle-ping\n  - id: tools-list/b\n    transport: http\n  - tools-list/a\n").Apply(r)
			Expect(applied.Stale).To(HaveLen(2))
			Expect(applied.Stale[0].Entry.ID).To(Equal("tools-list/b"))
			Expect(applied.Stale[0].Message()).To(Equal(
				"stale expected failure tools-list/b (transport http) (base.yaml line 3): its checks ran and none failed; remove it from base.yaml"))
			Expect(applied.Stale[1].Entry.ID).To(Equal("tools-list/a"))
			Expect(applied.Stale[1].Where).To(Equal("base.yaml line 5"))
		})

		It("leaves entries whose checks did not run, were skipped or could not be judged neither used nor stale", func() {
			r := pingRun()
			r.Scenarios[1].Checks[1].Status = reports.Skipped
			r.Scenarios[3].Checks[1].Status = reports.Errored
			applied := parseBaseline("server:\n  - tools-list/b\n  - resources-list\n").Apply(r)
			Expect(applied.Expected).To(Equal(0))
			Expect(applied.Stale).To(BeEmpty())
			// The error still counts: a baseline never hides what could not be judged.
			Expect(r.Counts().Errored).To(Equal(1))
		})

		It("does not find an entry stale that also covers scenario runs held by another shard", func() {
			r := pingRun()
			b := parseBaseline("server:\n  - tools-list/a\n  - tools-list/b\n")
			b.Elsewhere = func(e *reports.BaselineEntry) bool {
				return e.Covers("server", "tools-list", "ws", "2025-11-25")
			}
			Expect(b.Apply(r).Stale).To(BeEmpty())
			b.Elsewhere = func(*reports.BaselineEntry) bool { return false }
			Expect(b.Apply(r).Stale).To(HaveLen(1))

			limited := parseBaseline("server:\n  - {id: tools-list/a, transport: stdio, specVersion: 2025-11-25}\n").Entries[0]
			Expect(limited.Covers("server", "tools-list", "stdio", "2025-11-25")).To(BeTrue())
			Expect(limited.Covers("server", "tools-list", "ws", "2025-11-25")).To(BeFalse())
			Expect(limited.Covers("server", "tools-list", "stdio", "2026-07-28")).To(BeFalse())
			Expect(limited.Covers("client", "tools-list", "stdio", "2025-11-25")).To(BeFalse())
			Expect(limited.Covers("server", "lifecycle-ping", "stdio", "2025-11-25")).To(BeFalse())
		})

		It("keeps an entry whose check now warns (a SHOULD still violated) in use, without marking the warning", func() {
			r := pingRun()
			r.Scenarios[1].Checks[1].Status = reports.Warning
			applied := parseBaseline("server:\n  - tools-list/b\n").Apply(r)
			Expect(applied.Stale).To(BeEmpty())
			Expect(applied.Expected).To(Equal(0))
			Expect(checkOf(r, 1, "tools-list/b").Expected).To(BeFalse())
		})

		It("re-judges a run that was marked before: the marks of an earlier baseline go", func() {
			r := pingRun()
			parseBaseline("server:\n  - lifecycle-ping\n").Apply(r)
			applied := parseBaseline("server:\n  - tools-list/b\n").Apply(r)
			Expect(applied.Expected).To(Equal(1))
			Expect(checkOf(r, 0, "lifecycle-ping/empty-result").Expected).To(BeFalse())
			var none *reports.Baseline
			none.Apply(r)
			Expect(r.Counts().Expected).To(Equal(0))
		})
	})

	Describe("Mark", func() {
		It("marks a failure as it is collected by where its scenario says it ran", func() {
			b := parseBaseline("server:\n  - id: lifecycle-ping/empty-result\n    transport: http\n")
			s := &reports.Scenario{ID: "lifecycle-ping", Side: "server", Transport: "http", SpecVersion: "2025-11-25"}
			failed := reports.Check{ID: "lifecycle-ping/empty-result", Status: reports.Failed}
			Expect(b.Mark(s, &failed)).To(BeTrue())
			Expect(failed.Final()).To(Equal(reports.ExpectedFailure))
			Expect(failed.ExpectedBy).To(ContainSubstring("line 2"))

			elsewhere := reports.Check{ID: "lifecycle-ping/empty-result", Status: reports.Failed}
			Expect(b.Mark(&reports.Scenario{ID: "lifecycle-ping", Side: "server", Transport: "stdio"}, &elsewhere)).To(BeFalse())
			passed := reports.Check{ID: "lifecycle-ping/empty-result", Status: reports.Passed}
			Expect(b.Mark(s, &passed)).To(BeFalse())
			var none *reports.Baseline
			Expect(none.Mark(s, &failed)).To(BeFalse())
		})
	})

	Describe("in the reports", func() {
		var r *reports.Run
		BeforeEach(func() {
			r = pingRun()
			parseBaseline("server:\n  - lifecycle-ping\n").Apply(r)
		})

		It("results.json: status failed, expected and expectedBy, counts.expected, and back through ReadJSON", func() {
			var doc struct {
				Outcome string
				Counts  map[string]int
				// Scenarios: only what is asserted.
				Scenarios []struct {
					Outcome string
					Counts  map[string]int
					Checks  []struct {
						Status     string
						Expected   bool
						ExpectedBy string
					}
				}
			}
			out := renderJSON(r)
			Expect(json.Unmarshal(out, &doc)).To(Succeed())
			Expect(doc.Outcome).To(Equal("failed"))
			Expect(doc.Counts).To(HaveKeyWithValue("failed", 1))
			Expect(doc.Counts).To(HaveKeyWithValue("expected", 2))
			Expect(doc.Scenarios[0].Outcome).To(Equal("expected"))
			Expect(doc.Scenarios[0].Checks[0].Status).To(Equal("failed"))
			Expect(doc.Scenarios[0].Checks[0].Expected).To(BeTrue())
			Expect(doc.Scenarios[0].Checks[0].ExpectedBy).To(Equal("lifecycle-ping (base.yaml line 2)"))
			Expect(doc.Scenarios[1].Checks[1].Expected).To(BeFalse())

			back, err := reports.ReadJSON(bytes.NewReader(out))
			Expect(err).NotTo(HaveOccurred())
			Expect(back.Counts()).To(Equal(r.Counts()))
			Expect(checkOf(back, 0, "lifecycle-ping/empty-result").ExpectedBy).To(Equal("lifecycle-ping (base.yaml line 2)"))
		})

		It("results.json without a baseline has no expected fields", func() {
			out := string(renderJSON(pingRun()))
			Expect(out).NotTo(ContainSubstring(`"expected`))
		})

		It("junit.xml: a skipped testcase with the failure in its message and text, never a <failure>", func() {
			var doc struct {
				Failures int `xml:"failures,attr"`
				Skipped  int `xml:"skipped,attr"`
				Suites   []struct {
					Failures int `xml:"failures,attr"`
					Skipped  int `xml:"skipped,attr"`
					Cases    []struct {
						Failure *struct{} `xml:"failure"`
						Skipped *struct {
							Message string `xml:"message,attr"`
						} `xml:"skipped"`
						SystemOut  string `xml:"system-out"`
						Properties []struct {
							Name  string `xml:"name,attr"`
							Value string `xml:"value,attr"`
						} `xml:"properties>property"`
					} `xml:"testcase"`
				} `xml:"testsuite"`
			}
			Expect(xml.Unmarshal(renderJUnit(r), &doc)).To(Succeed())
			Expect(doc.Failures).To(Equal(1))
			Expect(doc.Skipped).To(Equal(2))
			tc := doc.Suites[0].Cases[0]
			Expect(doc.Suites[0].Failures).To(Equal(0))
			Expect(doc.Suites[0].Skipped).To(Equal(1))
			Expect(tc.Failure).To(BeNil())
			Expect(tc.Skipped).NotTo(BeNil())
			Expect(tc.Skipped.Message).To(Equal("expected failure (baseline): Expected: x"))
			Expect(tc.SystemOut).To(Equal("EXPECTED FAILURE (baseline): lifecycle-ping (base.yaml line 2)\nExpected: x\nActual: y"))
			Expect(tc.Properties).To(ContainElement(HaveField("Name", "outcome")))
			Expect(doc.Suites[1].Cases[1].Failure).NotTo(BeNil(), "the failure no entry lists stays a failure")
		})

		It("summary.md: XFAIL marks, the count beside the failures, and a list of the expected failures", func() {
			md := renderMarkdown(r)
			Expect(md).To(HavePrefix("# mcpconform server conformance: FAIL\n"))
			Expect(md).To(ContainSubstring("| 1 (+2 expected) |"))
			Expect(md).To(ContainSubstring("\n## Expected failures\n\n2 checks failed as listed in the expected-failures baseline; they do not fail the run."))
			Expect(md).To(ContainSubstring("- **XFAIL** `lifecycle-ping/empty-result` · stdio · 2025-11-25: Expected: x · baseline `lifecycle-ping (base.yaml line 2)`"))
			Expect(md).To(ContainSubstring("| XFAIL | MUST | `lifecycle-ping/empty-result` |"))
			Expect(md).To(ContainSubstring("### XFAIL `lifecycle-ping` · stdio · 2025-11-25"))
			// A long first line is cut: the list stays a list.
			long := pingRun()
			long.Scenarios[0].Checks[0].Message = strings.Repeat("x", 5000) + "\nActual: y"
			parseBaseline("server:\n  - lifecycle-ping\n").Apply(long)
			Expect(renderMarkdown(long)).To(MatchRegexp("- \\*\\*XFAIL\\*\\* `lifecycle-ping/empty-result` · stdio · 2025-11-25: x{300} … \\(line cut\\) · baseline"))
			// The Failures section holds only the unexpected one.
			failures, _, _ := strings.Cut(md[strings.Index(md, "## Failures"):], "## Expected failures")
			Expect(failures).To(ContainSubstring("1 check failed."))
			Expect(failures).NotTo(ContainSubstring("lifecycle-ping/empty-result"))
		})

		It("report.html: an XFAIL badge, the count in the totals and the entry beside the message", func() {
			page := renderHTML(r)
			Expect(page).To(ContainSubstring(`<li class="st-expected">Expected failure <b>2</b></li>`))
			Expect(page).To(ContainSubstring(`<td class="st-expected">XFAIL</td>`))
			Expect(page).To(ContainSubstring(`<span class="badge st-expected">XFAIL</span> <code>lifecycle-ping</code>`))
			Expect(page).To(ContainSubstring(`Expected failure: listed in the baseline as <code>lifecycle-ping (base.yaml line 2)</code>`))
			Expect(page).To(ContainSubstring("1 of 6 checks failed unexpectedly (and 2 as the baseline expected)"))
			Expect(renderHTML(pingRun())).NotTo(ContainSubstring(`<li class="st-expected">`))
		})
	})

	Describe("BaselineFrom and WriteYAML", func() {
		It("lists every failed check, limited only where it did not fail everywhere it ran, and reads back the same", func() {
			b := reports.BaselineFrom(pingRun())
			var buf bytes.Buffer
			Expect(b.WriteYAML(&buf, []string{"made by a test"}, reports.Sides(pingRun()))).To(Succeed())
			Expect(buf.String()).To(Equal(`# made by a test
server:
  - lifecycle-ping/empty-result
  - id: tools-list/b
    transport: "stdio"
`))
			back := parseBaseline(buf.String())
			for i := range back.Entries {
				back.Entries[i].Line = 0
			}
			Expect(back.Entries).To(Equal(b.Entries))
			// Applied to the run it was made from, it expects every failure and nothing is stale.
			r := pingRun()
			applied := back.Apply(r)
			Expect(applied.Expected).To(Equal(3))
			Expect(applied.Stale).To(BeEmpty())
			Expect(r.Counts().Failed).To(Equal(0))
		})

		It("keeps a check that failed in one cell of a transport × version grid to exactly that cell", func() {
			r := &reports.Run{Side: "client"}
			for _, tr := range []string{"stdio", "http"} {
				for _, v := range []string{"2025-11-25", "2026-07-28"} {
					st := reports.Passed
					if (tr == "stdio" && v == "2025-11-25") || (tr == "http" && v == "2026-07-28") {
						st = reports.Failed
					}
					r.Scenarios = append(r.Scenarios, reports.Scenario{ID: "s", Transport: tr, SpecVersion: v,
						Checks: []reports.Check{{ID: "s/c", Status: st}}})
				}
			}
			b := reports.BaselineFrom(r)
			Expect(b.Entries).To(ConsistOf(
				reports.BaselineEntry{Side: "client", ID: "s/c", Transports: []string{"http"}, SpecVersions: []string{"2026-07-28"}},
				reports.BaselineEntry{Side: "client", ID: "s/c", Transports: []string{"stdio"}, SpecVersions: []string{"2025-11-25"}},
			))
			applied := b.Apply(r)
			Expect(applied.Expected).To(Equal(2))
			Expect(applied.Stale).To(BeEmpty())
		})

		It("limits by version alone when a check failed at one version on every transport, and writes an empty list for a side with no failure", func() {
			r := &reports.Run{Side: "server"}
			for _, tr := range []string{"stdio", "http"} {
				for _, v := range []string{"2025-11-25", "2026-07-28"} {
					st := reports.Passed
					if v == "2026-07-28" {
						st = reports.Failed
					}
					r.Scenarios = append(r.Scenarios, reports.Scenario{ID: "s", Transport: tr, SpecVersion: v,
						Checks: []reports.Check{{ID: "s/c", Status: st}}})
				}
			}
			b := reports.BaselineFrom(r)
			Expect(b.Entries).To(Equal([]reports.BaselineEntry{{Side: "server", ID: "s/c", SpecVersions: []string{"2026-07-28"}}}))

			var buf bytes.Buffer
			Expect(reports.BaselineFrom(pingRunPassing()).WriteYAML(&buf, nil, []string{"server"})).To(Succeed())
			Expect(buf.String()).To(Equal("server: []\n"))
		})
	})
})

func pingRunPassing() *reports.Run {
	r := pingRun()
	for i := range r.Scenarios {
		for j := range r.Scenarios[i].Checks {
			r.Scenarios[i].Checks[j].Status = reports.Passed
		}
	}
	return r
}
