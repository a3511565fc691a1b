package reports_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/reports"
)

// Everything a target controls (its frames in the transcript, its stderr,
// the evidence quoted in check messages, the command line naming it) goes
// through every report format. None of it may break a file's syntax or
// smuggle markup into it.
var hostileTexts = map[string]string{
	"cdata end":        "before ]]> after ]]]]><![CDATA[>",
	"script":           `</script><script>alert("hostile-script")</script>`,
	"comment":          "<!-- hostile-comment --> <!--",
	"tags":             `<hostile-tag onload="x"> <img src=x onerror=alert(1)> </pre></textarea></details>`,
	"nul and controls": "nul\x00 bell\x07 backspace\x08 vt\x0b ff\x0c esc\x1b[31mred\x1b[0m del\x7f c1\u0085\u009b",
	"invalid utf-8":    "bad \xff\xfe\xc3 end \xe2\x82",
	"non-characters":   "fffe \ufffe ffff \uffff",
	"lone surrogates":  `{"jsonrpc":"2.0","method":"x","params":{"s":"\ud800 \udfff"}} raw ` + "\xed\xa0\x80 \xed\xbf\xbf",
	"line separators":  "ls\u2028ps\u2029 bidi \u202eevil\u202c",
	"fence breakers":   "```\n# hostile-heading\n```\n~~~\n# hostile-heading-tilde\n~~~\n    ```` \n| a | b |\n",
	"long line":        strings.Repeat("L", 1<<20) + "<hostile-long>",
	"entities":         "&amp; &lt;hostile-entity&gt; &#60;script&#62;",
	"osc strings":      "title \x1b]0;hostile-title\x07 link \x1b]8;;https://evil.example/\x1b\\shown-link\x1b]8;;\x1b\\ reset \x1bc end",
}

func hostileRun() *reports.Run {
	r := &reports.Run{
		Tool: "mcpconform", ToolVersion: "test", Side: "server", Transport: "stdio", SpecVersion: "2025-11-25",
		Target:  "stdio: ./srv --name `x` </script> ]]> \x00 \xff",
		Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Duration: time.Second,
	}
	for name, text := range hostileTexts {
		r.Scenarios = append(r.Scenarios, reports.Scenario{
			ID: "lifecycle-" + strings.ReplaceAll(name, " ", "-"), Title: "hostile " + name, Family: "lifecycle",
			Duration: time.Millisecond,
			Checks: []reports.Check{
				{ID: "lifecycle/fails", Title: "fails with " + name, Level: "MUST", SpecRef: "x.mdx", Status: reports.Failed,
					Message: "Expected: a result\nActual: " + text},
				{ID: "lifecycle/errs", Title: "errs", Level: "MUST", Status: reports.Errored, Message: text},
				{ID: "lifecycle/skips", Title: "skips", Level: "MUST", Status: reports.Skipped, Message: text},
				{ID: "lifecycle/warns", Title: "warns", Level: "SHOULD", Status: reports.Warning, Message: text},
			},
			Transcript: "    0.001s recv   " + text + "\n    0.002s stderr " + text + "\n",
			Stderr:     text,
		})
	}
	return r
}

var _ = Describe("target-controlled text in every report", func() {
	var dir string
	read := func(name string) []byte {
		GinkgoHelper()
		b, err := os.ReadFile(filepath.Join(dir, name))
		Expect(err).NotTo(HaveOccurred())
		return b
	}
	BeforeEach(func() {
		dir = GinkgoT().TempDir()
		_, err := reports.WriteAll(dir, hostileRun())
		Expect(err).NotTo(HaveOccurred())
	})

	It("keeps junit.xml well-formed XML", func() {
		d := xml.NewDecoder(bytes.NewReader(read(reports.JUnitFile)))
		d.Strict = true
		cases := 0
		for {
			tok, err := d.Token()
			if err == io.EOF {
				break
			}
			Expect(err).NotTo(HaveOccurred(), "junit.xml must parse")
			if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "testcase" {
				cases++
			}
		}
		Expect(cases).To(Equal(4 * len(hostileTexts)))
	})

	It("keeps results.json valid JSON and valid UTF-8", func() {
		b := read(reports.JSONFile)
		Expect(utf8.Valid(b)).To(BeTrue())
		var v map[string]any
		Expect(json.Unmarshal(b, &v)).To(Succeed())
		r, err := reports.ReadJSON(bytes.NewReader(b))
		Expect(err).NotTo(HaveOccurred())
		Expect(r.Scenarios).To(HaveLen(len(hostileTexts)))
	})

	It("lets no markup from the target into report.html", func() {
		page := string(read(reports.HTMLFile))
		Expect(utf8.ValidString(page)).To(BeTrue())
		Expect(page).NotTo(ContainSubstring("</script>"))
		Expect(page).NotTo(ContainSubstring("<script"))
		for _, raw := range []string{"<hostile", "<img", "<!--", "</pre></textarea>", "</textarea>", "<![CDATA["} {
			Expect(page).NotTo(ContainSubstring(raw))
		}
		Expect(page).To(ContainSubstring("&lt;hostile-tag"), "the text is shown, escaped")
		Expect(page).To(ContainSubstring("&amp;lt;hostile-entity&amp;gt;"), "entities in target text are shown as written")
		Expect(page).NotTo(MatchRegexp(`[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\x{80}-\x{9f}]`), "no control characters")
		Expect(page).NotTo(ContainSubstring("\ufffe"))
	})

	It("keeps target text inside its code fences and escaped in summary.md", func() {
		md := string(read(reports.MarkdownFile))
		Expect(utf8.ValidString(md)).To(BeTrue())
		Expect(md).NotTo(MatchRegexp(`[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\x{80}-\x{9f}]`), "no control characters: C1's CSI (U+009B) starts an escape sequence in a terminal")
		for i, line := range outsideFences(md) {
			line = withoutCodeSpans(line)
			Expect(line).NotTo(MatchRegexp(`^ {0,3}#+ hostile`), "line %d: a target's heading", i)
			Expect(line).NotTo(ContainSubstring("<hostile"), "line %d: raw markup", i)
			Expect(line).NotTo(ContainSubstring("</script>"), "line %d: raw markup", i)
			Expect(line).NotTo(ContainSubstring("<!--"), "line %d: an HTML comment would hide the rest", i)
		}
		Expect(len(md)).To(BeNumerically("<", 1<<20), "under GitHub's job summary limit")
	})

	// A window title or an OSC 8 hyperlink loses more than its ESC: what
	// the sequence carried is no text of the target's, and left behind it
	// reads as litter (or, to a reader who pastes it, as a link).
	It("removes escape strings whole, keeping the text between them", func() {
		for _, name := range []string{reports.MarkdownFile, reports.JUnitFile, reports.HTMLFile} {
			text := string(read(name))
			Expect(text).NotTo(ContainSubstring("hostile-title"), name)
			Expect(text).NotTo(ContainSubstring("evil.example"), name)
			Expect(text).To(ContainSubstring("shown-link"), name)
		}
	})
})

// outsideFences returns the lines of a Markdown text that are not inside a
// fenced code block, following CommonMark: a fence opens with three or more
// backticks or tildes (indented at most three spaces; a backtick fence's
// info string has no backtick) and closes with at least as many of the same
// character and nothing but spaces after.
func outsideFences(md string) map[int]string {
	out := map[int]string{}
	open := regexp.MustCompile("^ {0,3}(`{3,}|~{3,})(.*)$")
	var fence string
	for i, line := range strings.Split(md, "\n") {
		m := open.FindStringSubmatch(line)
		switch {
		case fence == "" && m != nil && !(m[1][0] == '`' && strings.Contains(m[2], "`")):
			fence = m[1]
		case fence != "" && m != nil && m[1][0] == fence[0] && len(m[1]) >= len(fence) && strings.TrimSpace(m[2]) == "":
			fence = ""
		case fence == "":
			out[i+1] = line
		}
	}
	Expect(fence).To(BeEmpty(), "every fence is closed")
	return out
}

// withoutCodeSpans removes the inline code spans of a Markdown line (a run
// of n backticks up to the next run of exactly n): their text renders
// literally, whatever it holds.
func withoutCodeSpans(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); {
		if line[i] != '`' {
			b.WriteByte(line[i])
			i++
			continue
		}
		n := 0
		for i+n < len(line) && line[i+n] == '`' {
			n++
		}
		end := -1
		for j := i + n; j < len(line); {
			if line[j] != '`' {
				j++
				continue
			}
			m := 0
			for j+m < len(line) && line[j+m] == '`' {
				m++
			}
			if m == n {
				end = j + m
				break
			}
			j += m
		}
		if end < 0 {
			b.WriteString(line[i : i+n])
			i += n
			continue
		}
		b.WriteString("<code/>")
		i = end
	}
	return b.String()
}
