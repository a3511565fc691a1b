package reports_test

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/reports"
)

func renderHTML(r *reports.Run) string {
	GinkgoHelper()
	var buf bytes.Buffer
	Expect(reports.WriteHTML(&buf, r)).To(Succeed())
	return buf.String()
}

// Every "<" the writer emits starts a tag (text is escaped and the inline CSS
// has none), so a tag scan is a faithful structural check without an HTML
// parser dependency.
var (
	htmlTag = regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9]*)\b[^<>]*>`)
	// Void elements have no end tag.
	htmlVoid = map[string]bool{"meta": true, "br": true, "hr": true, "img": true, "link": true, "input": true}
)

// checkBalanced verifies that every element is closed, in order, that no
// stray "<" or ">" is left outside a tag, and returns the element counts.
func checkBalanced(doc string) (map[string]int, error) {
	doc, ok := strings.CutPrefix(doc, "<!DOCTYPE html>\n")
	if !ok {
		return nil, errors.New("missing doctype")
	}
	counts := map[string]int{}
	var stack []string
	last := 0
	for _, m := range htmlTag.FindAllStringSubmatchIndex(doc, -1) {
		if text := doc[last:m[0]]; strings.ContainsAny(text, "<>") {
			return nil, errors.New("stray angle bracket in text: " + text)
		}
		last = m[1]
		closing, name := doc[m[2]:m[3]] == "/", strings.ToLower(doc[m[4]:m[5]])
		switch {
		case htmlVoid[name]:
			if closing {
				return nil, errors.New("end tag of void element " + name)
			}
			counts[name]++
		case !closing:
			stack = append(stack, name)
			counts[name]++
		case len(stack) == 0 || stack[len(stack)-1] != name:
			return nil, errors.New("unexpected </" + name + "> with open " + strings.Join(stack, ">"))
		default:
			stack = stack[:len(stack)-1]
		}
	}
	if strings.ContainsAny(doc[last:], "<>") {
		return nil, errors.New("stray angle bracket after the last tag")
	}
	if len(stack) != 0 {
		return nil, errors.New("unclosed: " + strings.Join(stack, ">"))
	}
	return counts, nil
}

// section returns the part of doc from the scenario section with the given
// anchor to its end.
func section(doc, anchor string) string {
	GinkgoHelper()
	_, rest, ok := strings.Cut(doc, `id="`+anchor+`"`)
	Expect(ok).To(BeTrue(), "no section %s", anchor)
	body, _, ok := strings.Cut(rest, "</section>")
	Expect(ok).To(BeTrue())
	return body
}

// matrixParts returns the head, body and foot of the scenario matrix.
func matrixParts(doc string) (head, body, foot string) {
	GinkgoHelper()
	_, matrix, ok := strings.Cut(doc, `<table class="matrix">`)
	Expect(ok).To(BeTrue(), "no matrix")
	matrix, _, _ = strings.Cut(matrix, "</table>")
	_, head, _ = strings.Cut(matrix, "<thead>")
	head, rest, _ := strings.Cut(head, "</thead>")
	_, body, _ = strings.Cut(rest, "<tbody>")
	body, rest, _ = strings.Cut(body, "</tbody>")
	_, foot, _ = strings.Cut(rest, "<tfoot>")
	return head, body, foot
}

var (
	matrixRowID = regexp.MustCompile(`<code>([^<]*)</code>`)
	matrixCell  = regexp.MustCompile(`<td class="cell (?:st-)?(\w+)"`)
)

// matrixRows maps each matrix row's scenario id to the status of its cells
// ("absent" where the scenario did not run), in column order.
func matrixRows(body string) map[string][]string {
	GinkgoHelper()
	rows := map[string][]string{}
	for _, tr := range strings.Split(body, "<tr>")[1:] {
		id := matrixRowID.FindStringSubmatch(tr)
		Expect(id).NotTo(BeNil(), "row without a scenario id: %s", tr)
		var cells []string
		for _, m := range matrixCell.FindAllStringSubmatch(tr, -1) {
			cells = append(cells, m[1])
		}
		rows[id[1]] = cells
	}
	return rows
}

var _ = Describe("WriteHTML", func() {
	It("matches the golden file", func() {
		expectGolden("golden.report.html", []byte(renderHTML(sampleRun())))
	})

	It("says why a version's column holds nothing judged: the target does not implement it", func() {
		r := &reports.Run{Side: "server", Transport: "stdio", SpecVersion: "2025-11-25,2026-07-28", Scenarios: []reports.Scenario{
			{ID: "tools-list", Transport: "stdio", SpecVersion: "2025-11-25", Checks: []reports.Check{{ID: "tools-list/a", Status: reports.Passed}}},
			{ID: "tools-list", Transport: "stdio", SpecVersion: "2026-07-28", Checks: []reports.Check{{ID: "tools-list/a", Status: reports.Skipped,
				Reason: reports.ReasonNotJudged, Message: "not judged: the target does not implement 2026-07-28 (server/discover answered error -32022)"}}},
		}}
		out := renderHTML(r)
		Expect(strings.Count(out, `<span class="ni">not implemented</span>`)).To(Equal(1))
		Expect(out).To(ContainSubstring(`<p class="ni-note">stdio · 2026-07-28: not judged: the target does not implement 2026-07-28 (server/discover answered error -32022)</p>`))
		// A column with a check judged, or skipped for another reason, is no such column.
		r.Scenarios[1].Checks[0].Reason = ""
		Expect(renderHTML(r)).NotTo(ContainSubstring("not implemented"))
	})

	It("is deterministic", func() {
		Expect(renderHTML(sampleRun())).To(Equal(renderHTML(sampleRun())))
	})

	It("is a well-formed, self-contained page", func() {
		out := renderHTML(sampleRun())
		counts, err := checkBalanced(out)
		Expect(err).NotTo(HaveOccurred())
		Expect(counts).To(HaveKeyWithValue("html", 1))
		Expect(counts).To(HaveKeyWithValue("head", 1))
		Expect(counts).To(HaveKeyWithValue("body", 1))
		Expect(counts).To(HaveKeyWithValue("style", 1))
		Expect(counts).To(HaveKeyWithValue("section", 3))
		Expect(counts).To(HaveKeyWithValue("details", 5)) // a scenario each, one transcript, one stderr
		Expect(counts).NotTo(HaveKey("script"))
		Expect(counts).NotTo(HaveKey("link"))
		Expect(counts).NotTo(HaveKey("img"))
		Expect(out).NotTo(MatchRegexp(`(?i)src="(https?:)?//`), "no external resources")
		// The only links out are to the spec pages the checks cite.
		for _, m := range regexp.MustCompile(`(?i)href="((https?:)?//[^"]*)"`).FindAllStringSubmatch(out, -1) {
			Expect(m[1]).To(HavePrefix(reports.SpecSite), "a link out of the page")
		}
		Expect(out).NotTo(ContainSubstring("@import"))
		Expect(out).NotTo(ContainSubstring("url("))
		Expect(utf8.ValidString(out)).To(BeTrue())
	})

	It("shows run details and the overall outcome in the header", func() {
		r := sampleRun()
		r.Transport = "stdio,http"
		r.SpecVersion = "2025-11-25,2025-06-18"
		r.Strict = true
		out := renderHTML(r)
		header, _, _ := strings.Cut(out, "</header>")
		for _, want := range []string{
			"<title>mcpconform server conformance: FAIL · stdio: ./srv --flag</title>",
			"<tr><th>Tool</th><td>mcpconform 0.1.0</td></tr>",
			"<tr><th>Target</th><td><code>stdio: ./srv --flag</code></td></tr>",
			"<tr><th>Transports</th><td>stdio, http</td></tr>",
			"<tr><th>Spec versions</th><td>2025-11-25, 2025-06-18</td></tr>",
			"<tr><th>Strict</th><td>yes (SHOULD violations fail)</td></tr>",
			"<tr><th>Started</th><td>2026-01-02 03:04:05 UTC</td></tr>",
			"<tr><th>Duration</th><td>1.235s</td></tr>",
			`<span class="badge st-failed">FAIL</span> 1 of 6 checks failed; 1 could not be judged`,
		} {
			Expect(header).To(ContainSubstring(want))
		}
	})

	It("has a totals bar and legend with every status", func() {
		out := renderHTML(sampleRun())
		for _, want := range []string{
			`<span class="st-passed" style="flex-grow: 1" title="Passed: 1"></span>`,
			`<span class="st-warning" style="flex-grow: 2" title="Warning: 2"></span>`,
			`<li class="st-passed">Passed <b>1</b></li>`,
			`<li class="st-failed">Failed <b>1</b></li>`,
			`<li class="st-warning">Warning <b>2</b></li>`,
			`<li class="st-skipped">Skipped <b>1</b></li>`,
			`<li class="st-error">Error <b>1</b></li>`,
			`<li class="total">Total <b>6</b></li>`,
		} {
			Expect(out).To(ContainSubstring(want))
		}
	})

	It("has a matrix row per scenario and a column per transport and version, linking to the sections", func() {
		out := renderHTML(sampleRun())
		head, body, foot := matrixParts(out)
		Expect(head).To(ContainSubstring(`<th class="axis" colspan="2">stdio</th></tr>`))
		Expect(head).To(ContainSubstring(`<tr><th class="axis" title="stdio · 2025-11-25">2025-11-25</th><th class="axis" title="stdio · 2025-06-18">2025-06-18</th></tr>`))
		Expect(strings.Count(body, "<tr>")).To(Equal(3))
		for _, want := range []string{
			`<a href="#s1-lifecycle-initialize"><code>lifecycle-initialize</code></a></td><td>Initialize handshake</td><td>lifecycle</td>` +
				`<td class="cell st-failed" title="stdio · 2025-11-25: 1 passed, 1 failed, 1 warning"><a href="#s1-lifecycle-initialize">FAIL</a></td>` +
				`<td class="cell absent" title="not run on stdio · 2025-06-18"></td></tr>`,
			`<td class="cell st-error" title="stdio · 2025-11-25: 1 skipped, 1 error"><a href="#s2-tools-list">ERROR</a></td>`,
			`<td>transport</td><td class="cell absent" title="not run on stdio · 2025-11-25"></td>` +
				`<td class="cell st-warning" title="stdio · 2025-06-18: 1 warning"><a href="#s3-transport-stdio-newline">WARN</a></td></tr>`,
		} {
			Expect(body).To(ContainSubstring(want))
		}
		Expect(foot).To(ContainSubstring(`<td class="cell" title="stdio · 2025-11-25: 1 passed, 1 failed, 1 warning, 1 skipped, 1 error"><span class="badge st-failed">FAIL</span></td>`))
		Expect(foot).To(ContainSubstring(`<td class="cell" title="stdio · 2025-06-18: 1 warning"><span class="badge st-warning">WARN</span></td>`))
		for _, anchor := range []string{"s1-lifecycle-initialize", "s2-tools-list", "s3-transport-stdio-newline"} {
			Expect(strings.Count(out, `<section class="scenario`)).To(Equal(3))
			Expect(strings.Count(out, `id="`+anchor+`"`)).To(Equal(1), anchor)
		}
	})

	It("lays a multi-transport, multi-version run out as scenario × transport × version", func() {
		r := multiRun()
		out := renderHTML(r)
		_, err := checkBalanced(out)
		Expect(err).NotTo(HaveOccurred())
		head, body, foot := matrixParts(out)
		Expect(head).To(ContainSubstring(`<th class="axis" colspan="2">stdio</th><th class="axis" colspan="2">http</th><th class="axis" colspan="2">ws</th></tr>`))
		Expect(regexp.MustCompile(`<th class="axis" title="[^"]*">([^<]*)</th>`).FindAllStringSubmatch(head, -1)).To(Equal([][]string{
			{`<th class="axis" title="stdio · 2025-06-18">2025-06-18</th>`, "2025-06-18"},
			{`<th class="axis" title="stdio · 2025-11-25">2025-11-25</th>`, "2025-11-25"},
			{`<th class="axis" title="http · 2025-06-18">2025-06-18</th>`, "2025-06-18"},
			{`<th class="axis" title="http · 2025-11-25">2025-11-25</th>`, "2025-11-25"},
			{`<th class="axis" title="ws · 2025-06-18">2025-06-18</th>`, "2025-06-18"},
			{`<th class="axis" title="ws · 2025-11-25">2025-11-25</th>`, "2025-11-25"},
		}))

		rows := matrixRows(body)
		Expect(rows).To(HaveKeyWithValue("lifecycle-ping", []string{"passed", "passed", "passed", "failed", "passed", "passed"}))
		Expect(rows).To(HaveKeyWithValue("lifecycle-initialize", []string{"passed", "passed", "passed", "passed", "passed", "passed"}))
		Expect(rows).To(HaveKeyWithValue("tools-list", []string{"passed", "passed", "passed", "passed", "error", "passed"}))
		Expect(rows).To(HaveLen(3), "one row per scenario, not per run")
		// The failing cell links to the section of that very run.
		Expect(r.Scenarios[9].Transport + " " + r.Scenarios[9].SpecVersion + " " + r.Scenarios[9].ID).To(Equal("http 2025-11-25 lifecycle-ping"))
		Expect(body).To(ContainSubstring(`<td class="cell st-failed" title="http · 2025-11-25: 1 passed, 1 failed"><a href="#s10-lifecycle-ping">FAIL</a></td>`))
		Expect(regexp.MustCompile(`badge st-(\w+)`).FindAllStringSubmatch(foot, -1)).To(Equal([][]string{
			{"badge st-failed", "failed"}, // the run's outcome
			{"badge st-passed", "passed"}, {"badge st-passed", "passed"},
			{"badge st-passed", "passed"}, {"badge st-failed", "failed"},
			{"badge st-error", "error"}, {"badge st-passed", "passed"},
		}))

		// A scenario that did not run on ws at 2025-11-25 leaves its cell empty.
		r.Scenarios = r.Scenarios[:len(r.Scenarios)-1]
		_, body, _ = matrixParts(renderHTML(r))
		Expect(matrixRows(body)).To(HaveKeyWithValue("tools-list", []string{"passed", "passed", "passed", "passed", "error", "absent"}))
		Expect(body).To(ContainSubstring(`<td class="cell absent" title="not run on ws · 2025-11-25"></td></tr>`))
	})

	It("names the transports and versions of the run and of each scenario", func() {
		out := renderHTML(multiRun())
		header, _, _ := strings.Cut(out, "</header>")
		Expect(header).To(ContainSubstring("<tr><th>Transports</th><td>stdio, http, ws</td></tr>"))
		Expect(header).To(ContainSubstring("<tr><th>Spec versions</th><td>2025-06-18, 2025-11-25</td></tr>"))
		sec := section(out, "s10-lifecycle-ping")
		Expect(sec).To(ContainSubstring(`<code>lifecycle-ping</code> <span class="where">· http · 2025-11-25</span>: ping gets an empty result</h2>`))
		Expect(sec).To(ContainSubstring(`<p class="meta">Side: server · Transport: http · Spec: 2025-11-25 · Family: lifecycle`))
		Expect(section(out, "s1-lifecycle-ping")).To(ContainSubstring(`<span class="where">· stdio · 2025-06-18</span>`))
	})

	It("gives repeated scenario ids distinct anchors", func() {
		r := sampleRun()
		r.Scenarios = append(r.Scenarios, r.Scenarios[0])
		out := renderHTML(r)
		Expect(out).To(ContainSubstring(`id="s1-lifecycle-initialize"`))
		Expect(out).To(ContainSubstring(`id="s4-lifecycle-initialize"`))
		Expect(out).To(ContainSubstring(`id="s4-lifecycle-initialize-c2"`))
	})

	It("lists checks and shows non-passing messages in <pre>", func() {
		sec := section(renderHTML(sampleRun()), "s1-lifecycle-initialize")
		for _, want := range []string{
			`<tr><td class="st-passed">PASS</td><td>MUST</td><td><code>lifecycle-initialize/version-echoed</code></td><td>Server answers with a protocol version it supports</td><td><a href="https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#version-negotiation"><code>2025-11-25/basic/lifecycle.mdx#version-negotiation</code></a></td>`,
			`<tr><td class="st-failed">FAIL</td><td>MUST</td><td><a href="#s1-lifecycle-initialize-c2"><code>lifecycle-initialize/capabilities-object</code></a></td>`,
			`<h3 id="s1-lifecycle-initialize-c2"><span class="badge st-failed">FAIL</span>`,
			"<pre>\nExpected: result.capabilities to be an object\nActual: null</pre>",
			"<pre>\nExpected: serverInfo.name to be non-empty\nActual: &#34;&#34;</pre>",
		} {
			Expect(sec).To(ContainSubstring(want))
		}
		Expect(sec).NotTo(ContainSubstring(`id="s1-lifecycle-initialize-c1"`), "passing checks have no message block")
		Expect(sec).To(ContainSubstring("<details>\n<summary>Target stderr</summary>\n<pre class=\"stderr\">\nsrv: listening on stdio</pre>"))
		Expect(section(renderHTML(sampleRun()), "s2-tools-list")).NotTo(ContainSubstring("Target stderr"))
	})

	It("colours transcript lines by direction", func() {
		r := sampleRun()
		r.Scenarios[0].Transcript = "" +
			"    0.001s send   [A] {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}\n" +
			"    0.003s recv   [A] {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n" +
			"    0.004s stderr warning: first line\n" +
			"second line of the same frame\n" +
			"    0.005s event  [B] HTTP 404\n" +
			"   12.250s recv   \n" +
			"… 3 further frames dropped (transcript limit 4194304 bytes)\n"
		sec := section(renderHTML(r), "s1-lifecycle-initialize")
		_, pre, ok := strings.Cut(sec, "<pre class=\"transcript\">\n")
		Expect(ok).To(BeTrue())
		pre, _, _ = strings.Cut(pre, "</pre>")
		Expect(pre).To(Equal("" +
			`<span class="tr-send">    0.001s send   [A] {&#34;jsonrpc&#34;:&#34;2.0&#34;,&#34;id&#34;:1,&#34;method&#34;:&#34;initialize&#34;}</span>` + "\n" +
			`<span class="tr-recv">    0.003s recv   [A] {&#34;jsonrpc&#34;:&#34;2.0&#34;,&#34;id&#34;:1,&#34;result&#34;:{}}</span>` + "\n" +
			`<span class="tr-stderr">    0.004s stderr warning: first line</span>` + "\n" +
			`<span class="tr-stderr">second line of the same frame</span>` + "\n" +
			`<span class="tr-event">    0.005s event  [B] HTTP 404</span>` + "\n" +
			`<span class="tr-recv">   12.250s recv   </span>` + "\n" +
			`<span class="tr-note">… 3 further frames dropped (transcript limit 4194304 bytes)</span>` + "\n"))
		Expect(sec).To(ContainSubstring("<summary>Transcript (7 lines)</summary>"))
	})

	It("renders a hostile transcript only as escaped text", func() {
		r := sampleRun()
		r.Target = `"><script>alert(1)</script>`
		r.Scenarios[0].Title = "<script>alert(1)</script>"
		r.Scenarios[0].Checks[1].Message = "Actual: <script>alert(1)</script>"
		r.Scenarios[0].Transcript = "    0.001s recv   {\"x\":\"<script>alert(1)</script>\"}\n" +
			"</pre></details><script>alert(1)</script><img src=x onerror=alert(1)>\n"
		r.Scenarios[0].Stderr = "</pre><script>alert(1)</script>"
		out := renderHTML(r)
		Expect(strings.ToLower(out)).NotTo(ContainSubstring("<script"))
		Expect(out).NotTo(ContainSubstring("<img"))
		Expect(out).To(ContainSubstring("&lt;script&gt;alert(1)&lt;/script&gt;"))
		Expect(out).To(ContainSubstring(`&lt;/pre&gt;&lt;/details&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;`))
		_, err := checkBalanced(out)
		Expect(err).NotTo(HaveOccurred())
	})

	It("strips control characters and invalid UTF-8", func() {
		r := sampleRun()
		r.Target = garbage
		r.Scenarios[0].Title = garbage
		r.Scenarios[0].Checks[1].Message = garbage
		r.Scenarios[0].Transcript = "    0.001s recv   " + garbage + "\x7f\u0085\ufdd0\n"
		r.Scenarios[0].Stderr = garbage
		out := renderHTML(r)
		Expect(utf8.ValidString(out)).To(BeTrue())
		for _, bad := range []string{"\x00", "\a", "\x1b", "\v", "\f", "\x7f", "\u0085", "\ufdd0", "\uFFFE", "\uFFFF", "[31m"} {
			Expect(out).NotTo(ContainSubstring(bad), "%q", bad)
		}
		Expect(out).To(ContainSubstring("start ]]&gt; mid"))
		Expect(out).To(ContainSubstring("bad\uFFFD utf8 \uFFFD("))
		Expect(out).To(ContainSubstring("ok-unicode é ✓ end"))
		_, err := checkBalanced(out)
		Expect(err).NotTo(HaveOccurred())
	})

	It("treats an unknown status as an error", func() {
		r := &reports.Run{Scenarios: []reports.Scenario{{ID: "a", Checks: []reports.Check{{ID: "a/b", Status: `"bogus"`}}}}}
		out := renderHTML(r)
		Expect(out).To(ContainSubstring(`<td class="st-error">ERROR</td>`))
		Expect(out).To(ContainSubstring("reports: check has unknown status"))
		Expect(out).NotTo(ContainSubstring(`st-"bogus"`))
	})

	It("renders an empty run", func() {
		out := renderHTML(&reports.Run{})
		_, err := checkBalanced(out)
		Expect(err).NotTo(HaveOccurred())
		Expect(out).To(ContainSubstring("<p>No scenario was run.</p>"))
		Expect(out).To(ContainSubstring(`<span class="badge st-skipped">SKIP</span> no check was judged`))
		Expect(out).To(ContainSubstring(`<span class="none"></span>`))
	})

	It("renders a scenario without checks", func() {
		out := renderHTML(&reports.Run{Scenarios: []reports.Scenario{{ID: "a"}}})
		_, err := checkBalanced(out)
		Expect(err).NotTo(HaveOccurred())
		Expect(section(out, "s1-a")).To(ContainSubstring("<p>No checks.</p>"))
	})

	It("reports a failing writer", func() {
		Expect(reports.WriteHTML(failingWriter{}, sampleRun())).To(MatchError(io.ErrShortWrite))
	})

	It("rejects a nil run", func() {
		Expect(reports.WriteHTML(io.Discard, nil)).To(HaveOccurred())
	})
})

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, io.ErrShortWrite }
