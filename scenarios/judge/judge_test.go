package judge

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	g "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/transport"
)

var taskStatuses = []string{"working", "input_required", "completed", "failed", "cancelled"}

var _ = g.Describe("the task status graph (tasks.mdx#task-status-lifecycle)", func() {
	// The spec's graph: working → {input_required, completed, failed,
	// cancelled}; input_required → {working, completed, failed, cancelled};
	// completed, failed and cancelled are terminal and never change.
	legal := map[string][]string{
		"working":        {"input_required", "completed", "failed", "cancelled"},
		"input_required": {"working", "completed", "failed", "cancelled"},
		"completed":      nil,
		"failed":         nil,
		"cancelled":      nil,
	}

	g.It("allows exactly the spec's transitions, and seeing a status again", func() {
		for _, from := range taskStatuses {
			for _, to := range taskStatuses {
				want := from == to
				for _, ok := range legal[from] {
					want = want || ok == to
				}
				Expect(LegalNext(from, to)).To(Equal(want), "%s → %s", from, to)
			}
		}
	})

	g.DescribeTable("refuses statuses the spec does not define",
		func(from, to string) { Expect(LegalNext(from, to)).To(BeFalse()) },
		g.Entry(nil, "working", "submitted"),
		g.Entry(nil, "working", ""),
		g.Entry(nil, "input_required", "Working"),
		g.Entry(nil, "submitted", "working"),
		g.Entry(nil, "", "working"),
		g.Entry(nil, "completed", "canceled"),
	)

	g.DescribeTable("illegalStep",
		func(statuses []string, want string) {
			got, bad := IllegalStep(statuses)
			Expect(bad).To(Equal(want != ""))
			Expect(got).To(Equal(want))
		},
		g.Entry("no statuses", nil, ""),
		g.Entry("one status", []string{"completed"}, ""),
		g.Entry("straight to completion", []string{"working", "completed"}, ""),
		g.Entry("a round trip through input_required",
			[]string{"working", "input_required", "working", "input_required", "cancelled"}, ""),
		g.Entry("input_required straight to failed", []string{"working", "input_required", "failed"}, ""),
		g.Entry("statuses seen again (polling)",
			[]string{"working", "working", "input_required", "input_required", "completed", "completed"}, ""),
		g.Entry("a terminal status that changes back",
			[]string{"working", "completed", "working"}, "completed → working (in working → completed → working)"),
		g.Entry("one terminal status to another",
			[]string{"working", "failed", "completed"}, "failed → completed (in working → failed → completed)"),
		g.Entry("only the first illegal step is named",
			[]string{"working", "cancelled", "working", "completed", "failed"},
			"cancelled → working (in working → cancelled → working → completed → failed)"),
		g.Entry("an unknown status",
			[]string{"working", "submitted"}, "working → submitted (in working → submitted)"),
	)
})

var _ = g.Describe("IsEmptyObject", func() {
	g.DescribeTable("reports an empty JSON object, _meta allowed",
		func(raw string, want bool) { Expect(IsEmptyObject(json.RawMessage(raw))).To(Equal(want)) },
		g.Entry(nil, `{}`, true),
		g.Entry(nil, " {\n} ", true),
		g.Entry(nil, `{"_meta":{}}`, true),
		g.Entry(nil, `{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"x"}}}`, true),
		g.Entry(nil, `{"a":1}`, false),
		g.Entry(nil, `{"a":null}`, false),
		g.Entry(nil, `{"_meta":{},"tools":[]}`, false),
		g.Entry(nil, `null`, false),
		g.Entry(nil, `[]`, false),
		g.Entry(nil, `"{}"`, false),
		g.Entry(nil, `0`, false),
		g.Entry(nil, ``, false),
		g.Entry(nil, `{`, false),
	)
})

var _ = g.Describe("Describe", func() {
	resp := func(id jsonrpc.ID, result string) *jsonrpc.Message {
		m := &jsonrpc.Message{JSONRPC: "2.0", ID: id, Result: json.RawMessage(result)}
		m.Raw, _ = json.Marshal(m)
		return m
	}
	errResp := func(code int, msg, data string) *jsonrpc.Message {
		e := &jsonrpc.Error{Code: code, Message: msg}
		if data != "" {
			e.Data = json.RawMessage(data)
		}
		return &jsonrpc.Message{JSONRPC: "2.0", ID: jsonrpc.NumberID(7), Error: e}
	}

	g.It("says when there was no response", func() {
		Expect(Describe(nil, nil)).To(Equal("no response"))
	})

	g.It("shows the transport's error instead of a response", func() {
		Expect(Describe(nil, &transport.HTTPStatusError{Status: 404})).To(Equal("no JSON-RPC response: HTTP 404"))
		Expect(Describe(nil, fmt.Errorf("tools/call: no response: %w", errors.New("context deadline exceeded")))).
			To(Equal("no JSON-RPC response: tools/call: no response: context deadline exceeded"))
		Expect(Describe(resp(jsonrpc.NumberID(1), `{}`), errors.New("late"))).To(Equal("no JSON-RPC response: late"),
			"the error wins over a message")
	})

	g.It("shows an error's code and message, and its data", func() {
		Expect(Describe(errResp(-32602, "Invalid params", ""), nil)).To(Equal(`error -32602 "Invalid params"`))
		Expect(Describe(errResp(-32600, `say "hi"`, `{"reason":"x"}`), nil)).To(Equal(`error -32600 "say \"hi\"" data={"reason":"x"}`))
	})

	g.It("shows a result", func() {
		Expect(Describe(resp(jsonrpc.StringID("a"), `{"tools":[]}`), nil)).To(Equal(`result {"tools":[]}`))
	})

	g.It("abbreviates a long result to 300 bytes and long error data to 200", func() {
		long := `{"text":"` + strings.Repeat("x", 1000) + `"}`
		got := Describe(resp(jsonrpc.NumberID(1), long), nil)
		Expect(got).To(Equal("result " + long[:300] + "…"))

		exact := `"` + strings.Repeat("y", 298) + `"`
		Expect(Describe(resp(jsonrpc.NumberID(1), exact), nil)).To(Equal("result "+exact), "300 bytes are shown whole")

		data := `"` + strings.Repeat("z", 500) + `"`
		Expect(Describe(errResp(-32603, "Internal error", data), nil)).
			To(Equal(`error -32603 "Internal error" data=` + data[:200] + "…"))
	})

	g.It("adds no id, raw frame, time or address of its own: the same answer reads the same every time", func() {
		a := resp(jsonrpc.NumberID(1), `{"content":[]}`)
		b := resp(jsonrpc.StringID("req-49152"), `{"content":[]}`)
		first := Describe(a, nil)
		Expect(Describe(b, nil)).To(Equal(first))
		Expect(first).To(Equal(`result {"content":[]}`))
		Expect(first).NotTo(ContainSubstring("49152"))
		Expect(first).NotTo(ContainSubstring(time.Now().Format("2006")))

		ea, eb := errResp(-32601, "Method not found", ""), errResp(-32601, "Method not found", "")
		eb.ID = jsonrpc.StringID("other")
		Expect(Describe(ea, nil)).To(Equal(Describe(eb, nil)))
	})
})
