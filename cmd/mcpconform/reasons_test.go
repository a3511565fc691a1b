package main

import (
	"bytes"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/reports"
)

var _ = Describe("the reasons printed after a run's counts", func() {
	It("leaves out the \"not judged: \" of the checks whose kind says they were not judged, and only theirs", func() {
		run := &reports.Run{Scenarios: []reports.Scenario{{ID: "s", Checks: []reports.Check{
			{ID: "s/a", Status: reports.Skipped, Reason: reports.ReasonNotJudged, Message: "not judged: the target answered without a task"},
			{ID: "s/b", Status: reports.Skipped, Reason: reports.ReasonNotJudged, Message: "not judged: the target answered without a task"},
			{ID: "s/c", Status: reports.Skipped, Message: "not judged: the words of a plain skip"},
			{ID: "s/d", Status: reports.Errored, Reason: reports.ReasonInterrupted, Message: "interrupted by SIGINT before this check was judged"},
		}}}}
		var out bytes.Buffer
		printReasons(&out, run)
		Expect(out.String()).To(Equal("3 skipped:\n" +
			"     2  the target answered without a task\n" +
			"     1  not judged: the words of a plain skip\n" +
			"1 not judged:\n" +
			"     1  interrupted by SIGINT before this check was judged\n"))
	})
})
