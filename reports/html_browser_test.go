package reports_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/reports"
)

// chromiumPath is Debian's chromium, which .ci/run installs.
const chromiumPath = "/usr/bin/chromium"

// browserWithin bounds the whole browser session (start, every page, every
// click); each wait below is bounded by it.
const browserWithin = 2 * time.Minute

// browserRun is multiRun with every outcome in its matrix: ping fails on
// http at 2025-11-25 (a 100-line transcript) and fails as the baseline
// expected on stdio at 2025-06-18, tools-list is not judged on ws at
// 2025-06-18 and skipped on stdio at 2025-11-25, initialize warns on ws at
// 2025-11-25.
func browserRun() *reports.Run {
	r := multiRun()
	for i := range r.Scenarios {
		s := &r.Scenarios[i]
		switch {
		case s.ID == "lifecycle-ping" && s.Transport == "stdio" && s.SpecVersion == "2025-06-18":
			s.Checks[1].Status = reports.Failed
			s.Checks[1].Message = "Expected: the id 1\nActual: the id \"1\""
			s.Checks[1].Expected = true
			s.Checks[1].ExpectedBy = "lifecycle-ping/same-id (expected.yaml)"
		case s.ID == "tools-list" && s.Transport == "stdio" && s.SpecVersion == "2025-11-25":
			s.Checks[0].Status = reports.Skipped
			s.Checks[0].Message = "the server does not declare the tools capability"
		case s.ID == "lifecycle-initialize" && s.Transport == "ws" && s.SpecVersion == "2025-11-25":
			s.Checks[0].Level = "SHOULD"
			s.Checks[0].Status = reports.Warning
			s.Checks[0].Message = "Expected: serverInfo.version\nActual: none"
		}
	}
	return r
}

// artifactDir is where the test keeps what a reader may want to look at:
// $MCPCONFORM_ARTIFACTS, or the repository's (git-ignored) mcpconform-results.
func artifactDir() string {
	GinkgoHelper()
	dir := os.Getenv("MCPCONFORM_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("..", "mcpconform-results", "html-browser")
	}
	dir, err := filepath.Abs(dir)
	Expect(err).NotTo(HaveOccurred())
	Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
	return dir
}

// Scripts evaluated in the page through the DevTools protocol (the page's
// own policy forbids scripts of its own; this is the browser's debugger).
const (
	// The matrix body: per row, its scenario id and each cell's outcome
	// class ("" for a cell where the scenario did not run).
	jsMatrix = `[...document.querySelectorAll("table.matrix tbody tr")].map(tr => ({
		id: tr.querySelector("code").textContent,
		cells: [...tr.querySelectorAll("td.cell")].map(td => (td.className.match(/st-(\w+)/) || ["", ""])[1]),
	}))`
	// Scenario ids of the matrix rows, and anchors of the sections, that are
	// shown (checkVisibility: neither display: none nor in a closed details).
	jsShownRows     = `[...document.querySelectorAll("table.matrix tbody tr")].filter(tr => tr.checkVisibility()).map(tr => tr.querySelector("code").textContent)`
	jsShownSections = `[...document.querySelectorAll("section.scenario")].filter(s => s.checkVisibility()).map(s => s.id)`
)

var _ = Describe("report.html in headless Chromium", Ordered, func() {
	var (
		browser context.Context
		page    string // file:// URL of the report
		run     *reports.Run
	)

	BeforeAll(func() {
		if _, err := exec.LookPath(chromiumPath); err != nil {
			if os.Getenv("MCPCONFORM_REQUIRE_CHROMIUM") == "1" {
				Fail(fmt.Sprintf("MCPCONFORM_REQUIRE_CHROMIUM=1 but %s is missing (apt-get install chromium): %v", chromiumPath, err))
			}
			Skip(fmt.Sprintf("%s is missing (apt-get install chromium; MCPCONFORM_REQUIRE_CHROMIUM=1 makes this a failure): %v", chromiumPath, err))
		}
		run = browserRun()
		dir := GinkgoT().TempDir()
		path := filepath.Join(dir, "report.html")
		f, err := os.Create(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(reports.WriteHTML(f, run)).To(Succeed())
		Expect(f.Close()).To(Succeed())
		page = "file://" + path

		// Without the background-networking flags Chromium keeps trying to
		// reach the network, which this machine does not have, and is slow.
		alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
			chromedp.ExecPath(chromiumPath),
			chromedp.Headless,
			chromedp.NoSandbox,
			chromedp.DisableGPU,
			chromedp.NoFirstRun,
			chromedp.NoDefaultBrowserCheck,
			chromedp.Flag("disable-quic", true),
			chromedp.Flag("disable-background-networking", true),
			chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true),
			chromedp.Flag("disable-dev-shm-usage", true),
			chromedp.Flag("hide-scrollbars", true),
			chromedp.Flag("mute-audio", true),
			chromedp.UserDataDir(filepath.Join(dir, "profile")),
			chromedp.WindowSize(1280, 900),
		)
		DeferCleanup(cancelAlloc)
		var cancelCtx context.CancelFunc
		browser, cancelCtx = chromedp.NewContext(alloc)
		DeferCleanup(cancelCtx)
		// The first Run starts the browser, which lives as long as browser;
		// a deadline on that context would end it, so the timer cancels it.
		timer := time.AfterFunc(browserWithin, cancelCtx)
		DeferCleanup(func() { timer.Stop() })
		Expect(chromedp.Do(browser, chromedp.Navigate("about:blank"))).To(Succeed())
	})

	// open loads the report afresh: no filter chosen, every details closed.
	open := func() {
		GinkgoHelper()
		Expect(chromedp.Do(browser, chromedp.Navigate(page), chromedp.WaitVisible(chromedp.CSS("table.matrix")))).To(Succeed())
	}
	eval := func(js string, into any) {
		GinkgoHelper()
		raw, err := chromedp.Run(browser, chromedp.Evaluate[[]byte](js))
		Expect(err).NotTo(HaveOccurred())
		Expect(json.Unmarshal(raw, into)).To(Succeed(), string(raw))
	}
	shown := func(js string) func() []string {
		return func() []string {
			var out []string
			eval(js, &out)
			return out
		}
	}

	It("renders the matrix: a row per scenario, a coloured cell per transport and version with the cell's outcome", func() {
		open()
		var rows []struct {
			ID    string
			Cells []string
		}
		eval(jsMatrix, &rows)
		// The outcome of every (scenario, transport, version), from the run.
		want := map[string][]string{}
		var order []string
		for i := range run.Scenarios {
			s := &run.Scenarios[i]
			if _, ok := want[s.ID]; !ok {
				order = append(order, s.ID)
			}
			want[s.ID] = append(want[s.ID], string(s.Counts().Outcome()))
		}
		Expect(rows).To(HaveLen(len(order)))
		for i, row := range rows {
			Expect(row.ID).To(Equal(order[i]))
			// multiRun's cells run transport by transport, version by version,
			// as the matrix's columns do.
			Expect(row.Cells).To(Equal(want[row.ID]), "row %s", row.ID)
		}
		Expect(want["lifecycle-ping"]).To(ContainElements("failed", "expected"))
		Expect(want["tools-list"]).To(ContainElements("error", "skipped"))
		Expect(want["lifecycle-initialize"]).To(ContainElement("warning"))

		// The stylesheet applies: a failed cell is red, a passed one green.
		var colours map[string]string
		eval(`Object.fromEntries(["failed", "passed", "warning", "skipped", "error", "expected"].map(s =>
			[s, getComputedStyle(document.querySelector("table.matrix td.st-" + s)).backgroundColor + " " +
			    getComputedStyle(document.querySelector("table.matrix td.st-" + s)).backgroundImage]))`, &colours)
		Expect(colours["failed"]).To(HavePrefix("rgb(207, 34, 46)"))
		Expect(colours["passed"]).To(HavePrefix("rgb(45, 164, 78)"))
		Expect(colours["warning"]).To(HavePrefix("rgb(227, 179, 65)"))
		Expect(colours["error"]).To(HavePrefix("rgb(130, 80, 223)"))
		Expect(colours["expected"]).To(ContainSubstring("repeating-linear-gradient"))
		// And so does each section's border, in its outcome's colour.
		var borders map[string]string
		eval(`Object.fromEntries(["failed", "passed", "error"].map(s =>
			[s, getComputedStyle(document.querySelector("section.scenario.sec-" + s)).borderLeftColor]))`, &borders)
		Expect(borders).To(Equal(map[string]string{"failed": "rgb(207, 34, 46)", "passed": "rgb(45, 164, 78)", "error": "rgb(130, 80, 223)"}))
	})

	It("filters the matrix and the sections by outcome when a filter is clicked, and shows all again", func() {
		open()
		all := []string{"lifecycle-ping", "lifecycle-initialize", "tools-list"}
		Expect(shown(jsShownRows)()).To(Equal(all))
		Expect(shown(jsShownSections)()).To(HaveLen(len(run.Scenarios)))

		// The bar offers the outcomes that occur, with the rows each keeps.
		labels, err := chromedp.Run(browser, chromedp.Evaluate[[]string](
			`[...document.querySelectorAll(".filters label")].map(l => l.textContent.trim())`))
		Expect(err).NotTo(HaveOccurred())
		Expect(labels).To(Equal([]string{"all 3", "Failed 1", "Not judged 1", "Expected failures 1", "Warnings 1", "Skipped 1"}))

		for _, tc := range []struct {
			filter, rows, section string
		}{
			{"failed", "lifecycle-ping", "s10-lifecycle-ping"},
			{"error", "tools-list", "s15-tools-list"},
			{"expected", "lifecycle-ping", "s1-lifecycle-ping"},
			{"warning", "lifecycle-initialize", "s17-lifecycle-initialize"},
			{"skipped", "tools-list", "s6-tools-list"},
		} {
			Expect(chromedp.Do(browser, chromedp.Click(chromedp.ID("show-"+tc.filter)))).To(Succeed())
			Eventually(shown(jsShownRows)).Within(10*time.Second).Should(Equal([]string{tc.rows}), tc.filter)
			Eventually(shown(jsShownSections)).Within(10*time.Second).Should(Equal([]string{tc.section}), tc.filter)
		}
		Expect(chromedp.Do(browser, chromedp.Click(chromedp.ID("show-all")))).To(Succeed())
		Eventually(shown(jsShownRows)).Within(10 * time.Second).Should(Equal(all))
		Eventually(shown(jsShownSections)).Within(10 * time.Second).Should(HaveLen(len(run.Scenarios)))
	})

	It("opens the scenarios that failed and folds the others, which a click opens", func() {
		open()
		const failed = "#s10-lifecycle-ping"
		Expect(run.Scenarios[9].Checks[0].Status).To(Equal(reports.Failed))
		passed := ""
		for i, sc := range run.Scenarios {
			if c := sc.Counts(); c.Passed == c.Total && c.Total > 0 {
				passed = fmt.Sprintf("#s%d-%s", i+1, sc.ID)
				break
			}
		}
		Expect(passed).NotTo(BeEmpty(), "the run has a scenario that passed")
		var visible bool
		eval(`document.querySelector("`+failed+` table.checks").checkVisibility()`, &visible)
		Expect(visible).To(BeTrue(), "a failed scenario starts open")
		eval(`document.querySelector("`+passed+` table.checks").checkVisibility()`, &visible)
		Expect(visible).To(BeFalse(), "a passed scenario starts folded")
		eval(`document.querySelector("`+passed+` summary h2").checkVisibility()`, &visible)
		Expect(visible).To(BeTrue(), "its heading shows")
		Expect(chromedp.Do(browser,
			chromedp.Click(chromedp.CSS(`table.matrix a[href="`+passed+`"]`)),
			chromedp.Click(chromedp.CSS(passed+" details.scenario summary")),
			chromedp.WaitVisible(chromedp.CSS(passed+" table.checks")),
		)).To(Succeed())
	})

	It("expands a failure's transcript on a click, after following the matrix link to it", func() {
		open()
		const sec = "#s10-lifecycle-ping"
		Expect(run.Scenarios[9].Checks[0].Status).To(Equal(reports.Failed))
		var unfolded bool
		eval(`document.querySelector("`+sec+` details.transcript").open`, &unfolded)
		Expect(unfolded).To(BeFalse(), "the transcript starts folded")
		var visible bool
		eval(`document.querySelector("`+sec+` pre.transcript").checkVisibility()`, &visible)
		Expect(visible).To(BeFalse(), "a folded transcript is hidden")

		Expect(chromedp.Do(browser,
			chromedp.Click(chromedp.CSS(`table.matrix a[href="`+sec+`"]`)),
			chromedp.Click(chromedp.CSS(sec+" details.transcript summary")),
			chromedp.WaitVisible(chromedp.CSS(sec+" pre.transcript")),
		)).To(Succeed())
		loc, err := chromedp.Run(browser, chromedp.Location())
		Expect(err).NotTo(HaveOccurred())
		Expect(loc).To(HaveSuffix(sec))
		eval(`document.querySelector("`+sec+` details.transcript").open`, &unfolded)
		Expect(unfolded).To(BeTrue())
		eval(`document.querySelector("`+sec+` pre.transcript").checkVisibility()`, &visible)
		Expect(visible).To(BeTrue())
		text, err := chromedp.Run(browser, chromedp.Text(chromedp.CSS(sec+" pre.transcript")))
		Expect(err).NotTo(HaveOccurred())
		Expect(text).To(ContainSubstring("frame 1\n"))
		Expect(text).To(ContainSubstring("frame 100"))
		// Lines keep the colour of their direction.
		var colour string
		eval(`getComputedStyle(document.querySelector("`+sec+` pre.transcript .tr-recv")).color`, &colour)
		Expect(colour).To(Equal("rgb(17, 99, 41)"))
	})

	It("keeps a screenshot of the page with a filter and a transcript open", func() {
		open()
		png, err := chromedp.Run(browser, chromedp.FullScreenshot(100))
		Expect(err).NotTo(HaveOccurred())
		Expect(png).To(HavePrefix("\x89PNG\r\n\x1a\n"))
		dir := artifactDir()
		full := filepath.Join(dir, "report.png")
		Expect(os.WriteFile(full, png, 0o644)).To(Succeed())

		Expect(chromedp.Do(browser,
			chromedp.Click(chromedp.ID("show-failed")),
			chromedp.Click(chromedp.CSS("#s10-lifecycle-ping details summary")),
			chromedp.WaitVisible(chromedp.CSS("#s10-lifecycle-ping pre.transcript")),
		)).To(Succeed())
		png, err = chromedp.Run(browser, chromedp.FullScreenshot(100))
		Expect(err).NotTo(HaveOccurred())
		filtered := filepath.Join(dir, "report-failed-transcript.png")
		Expect(os.WriteFile(filtered, png, 0o644)).To(Succeed())
		AddReportEntry("screenshots", strings.Join([]string{full, filtered}, "\n"), ReportEntryVisibilityAlways)
		fmt.Fprintf(GinkgoWriter, "screenshots: %s, %s\n", full, filtered)
	})
})

var _ = Describe("report.html filters", func() {
	It("offers a filter per outcome a matrix cell has, with the rows each keeps, and none when every cell passed", func() {
		out := renderHTML(browserRun())
		bar, _, ok := strings.Cut(out, `<table class="matrix">`)
		Expect(ok).To(BeTrue())
		Expect(regexp.MustCompile(`id="show-(\w+)"`).FindAllStringSubmatch(bar, -1)).To(Equal([][]string{
			{`id="show-all"`, "all"}, {`id="show-failed"`, "failed"}, {`id="show-error"`, "error"},
			{`id="show-expected"`, "expected"}, {`id="show-warning"`, "warning"}, {`id="show-skipped"`, "skipped"},
		}))
		Expect(bar).To(ContainSubstring(`title="the 1 scenarios with a FAIL cell"`))
		// Each offered outcome has its rule in the stylesheet.
		for _, st := range []string{"failed", "error", "expected", "warning", "skipped"} {
			Expect(out).To(ContainSubstring(`body:has(#show-` + st + `:checked) table.matrix tbody tr:not(:has(td.st-` + st + `))`))
			Expect(out).To(ContainSubstring(`body:has(#show-` + st + `:checked) section.scenario:not(.sec-` + st + `)`))
		}

		passing := multiRun()
		passing.Scenarios = passing.Scenarios[:3]
		passing.Scenarios[2].Checks[0].Status = reports.Passed
		Expect(renderHTML(passing)).NotTo(ContainSubstring(`class="filters"`))
	})
})
