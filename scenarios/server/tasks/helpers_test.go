package tasks

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"time"

	g "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/transport"
)

var _ = g.Describe("guessable", func() {
	g.It("accepts random 22-character base64url ids", func() {
		Expect(judge.GuessableIDs([]string{
			"Yx7bq2Jt0c9KpLrW3mZs8Q",
			"b1R-4nVd_9hXoEa2TkQy7w",
			"M0uZ6sPq3CwL_8fHnJt5Ag",
			"kQ9r2VxY-7dTnBw4pLe1Zs",
			"3HfTz8aNq_6mKcVu0RyW2E",
		})).To(BeEmpty())
		for range 200 {
			ids := []string{randomID(), randomID(), randomID(), randomID(), randomID()}
			Expect(ids[0]).To(HaveLen(22))
			Expect(judge.GuessableIDs(ids)).To(BeEmpty(), "ids %v", ids)
		}
	})

	g.It("accepts random UUIDs", func() {
		Expect(judge.GuessableIDs([]string{
			"3f1c2a9e-8b7d-4e21-9a6f-0c5d4b3a2e1f",
			"a9e40b7c-1d2f-4c3b-8e5a-6f7d8c9b0a1e",
			"5b6c7d8e-9f0a-4b1c-a2d3-e4f5a6b7c8d9",
			"e1d2c3b4-a5f6-4e7d-8c9b-0a1f2e3d4c5b",
			"0f9e8d7c-6b5a-4f3e-9d2c-1b0a9f8e7d6c",
		})).To(BeEmpty())
	})

	g.It("accepts a shared prefix when the rest varies enough", func() {
		ids := []string{}
		for range 5 {
			ids = append(ids, "tenant-acme-prod-"+randomID())
		}
		Expect(judge.GuessableIDs(ids)).To(BeEmpty(), "ids %v", ids)
	})

	g.DescribeTable("names short ids",
		func(ids []string, short string) {
			Expect(judge.GuessableIDs(ids)).To(Equal(fmt.Sprintf("id %q is shorter than 16 characters", short)))
		},
		g.Entry("counting task-1 … task-5", []string{"task-1", "task-2", "task-3", "task-4", "task-5"}, "task-1"),
		g.Entry("one short among long ones",
			[]string{"Yx7bq2Jt0c9KpLrW3mZs8Q", "b1R-4nVd_9hXoEa2TkQy7w", "abc", "kQ9r2VxY-7dTnBw4pLe1Zs", "3HfTz8aNq_6mKcVu0RyW2E"}, "abc"),
		g.Entry("15 characters", []string{"aBcDeFgHiJkLmNo", "Yx7bq2Jt0c9KpLrW3mZs8Q"}, "aBcDeFgHiJkLmNo"),
		g.Entry("empty", []string{"", "Yx7bq2Jt0c9KpLrW3mZs8Q"}, ""),
	)

	g.DescribeTable("names ids that count up",
		func(ids []string) { Expect(judge.GuessableIDs(ids)).To(Equal("the ids count up")) },
		g.Entry("by one", []string{"task-000000000001", "task-000000000002", "task-000000000003", "task-000000000004", "task-000000000005"}),
		g.Entry("with gaps", []string{"session-7f3a-task-10", "session-7f3a-task-17", "session-7f3a-task-90", "session-7f3a-task-91", "session-7f3a-task-4000"}),
		g.Entry("nanosecond clocks", []string{"1764438000000000001", "1764438000000000352", "1764438000000001000", "1764438000000005000", "1764438000000009999"}),
	)

	g.It("names ids that share a long prefix and vary in few characters", func() {
		ids := []string{
			"2f9c1d7e5b3a-task-aa", "2f9c1d7e5b3a-task-ab", "2f9c1d7e5b3a-task-b0", "2f9c1d7e5b3a-task-zz", "2f9c1d7e5b3a-task-0q",
		}
		Expect(judge.GuessableIDs(ids)).To(Equal(`the ids share the prefix "2f9c1d7e5b3a-task-" and vary in fewer than 12 characters`))
	})

	g.It("names long ids that count down (they share all but the last digit)", func() {
		ids := []string{"task-000000000005", "task-000000000004", "task-000000000003", "task-000000000002", "task-000000000001"}
		Expect(judge.GuessableIDs(ids)).To(HavePrefix(`the ids share the prefix "task-00000000000"`))
	})

	g.It("names a repeated id", func() {
		id := randomID()
		Expect(judge.GuessableIDs([]string{id, id, id, id, id})).To(ContainSubstring("vary in fewer than 12 characters"))
	})

	g.It("names ids that vary in 11 characters and accepts 12", func() {
		// The ids differ from the character after the prefix on (a digit
		// per id), so the varying part is that digit and what follows.
		eleven, twelve := []string{}, []string{}
		for i := range 5 {
			r := randomID()
			eleven = append(eleven, fmt.Sprintf("fixed-prefix-%d%s", i, r[:10]))
			twelve = append(twelve, fmt.Sprintf("fixed-prefix-%d%s", i, r[:11]))
		}
		Expect(judge.GuessableIDs(eleven)).To(Equal(`the ids share the prefix "fixed-prefix-" and vary in fewer than 12 characters`), "ids %v", eleven)
		Expect(judge.GuessableIDs(twelve)).To(BeEmpty(), "ids %v", twelve)
	})
})

var _ = g.Describe("parseTime and laterThan", func() {
	g.DescribeTable("parseTime reads RFC 3339 timestamps",
		func(s string, ok bool) {
			_, err := judge.ParseTime(s)
			if ok {
				Expect(err).NotTo(HaveOccurred())
			} else {
				Expect(err).To(HaveOccurred())
			}
		},
		g.Entry(nil, "2025-11-25T10:00:00Z", true),
		g.Entry(nil, "2025-11-25T10:00:00.123456789Z", true),
		g.Entry(nil, "2025-11-25T10:00:00.5+01:00", true),
		g.Entry(nil, "2025-11-25", false),
		g.Entry(nil, "2025-11-25 10:00:00Z", false),
		g.Entry(nil, "2025-11-25T10:00:00", false),
		g.Entry(nil, "yesterday", false),
		g.Entry(nil, "", false),
	)

	g.It("parses the instant, zone included", func() {
		a, err := judge.ParseTime("2025-11-25T11:30:00.25+01:00")
		Expect(err).NotTo(HaveOccurred())
		Expect(a.UTC()).To(Equal(time.Date(2025, 11, 25, 10, 30, 0, 250_000_000, time.UTC)))
	})

	g.DescribeTable("laterThan compares instants",
		func(a, b string, want bool) { Expect(laterThan(a, b)).To(Equal(want)) },
		g.Entry("a second later", "2025-11-25T10:00:01Z", "2025-11-25T10:00:00Z", true),
		g.Entry("a second earlier", "2025-11-25T10:00:00Z", "2025-11-25T10:00:01Z", false),
		g.Entry("the same", "2025-11-25T10:00:00Z", "2025-11-25T10:00:00Z", false),
		g.Entry("a fraction later", "2025-11-25T10:00:00.5Z", "2025-11-25T10:00:00Z", true),
		g.Entry("the same instant written with a fraction (text would say later)", "2025-11-25T10:00:00Z", "2025-11-25T10:00:00.000Z", false),
		g.Entry("the same instant in another zone", "2025-11-25T11:00:00+01:00", "2025-11-25T10:00:00Z", false),
		g.Entry("earlier in another zone (text would say later)", "2025-11-25T10:30:00+01:00", "2025-11-25T10:00:00Z", false),
		g.Entry("later in another zone (text would say earlier)", "2025-11-25T10:00:00Z", "2025-11-25T10:30:00+01:00", true),
	)

	g.DescribeTable("laterThan compares unparsable timestamps as text",
		func(a, b string, want bool) { Expect(laterThan(a, b)).To(Equal(want)) },
		g.Entry(nil, "b", "a", true),
		g.Entry(nil, "a", "b", false),
		g.Entry(nil, "a", "a", false),
		g.Entry(nil, "2025-11-25 10:00:01", "2025-11-25 10:00:00", true),
		g.Entry("one side unparsable", "not a time", "2025-11-25T10:00:00Z", true),
	)
})

var _ = g.Describe("relatedTaskID", func() {
	g.DescribeTable("reads _meta[io.modelcontextprotocol/related-task].taskId",
		func(raw string, id string, ok bool) {
			got, found := relatedTaskID(json.RawMessage(raw))
			Expect(found).To(Equal(ok))
			Expect(got).To(Equal(id))
		},
		g.Entry("present", `{"content":[],"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t-1"}}}`, "t-1", true),
		g.Entry("among other meta", `{"_meta":{"progressToken":3,"io.modelcontextprotocol/related-task":{"taskId":"abc"}}}`, "abc", true),
		g.Entry("present without a taskId", `{"_meta":{"io.modelcontextprotocol/related-task":{}}}`, "", true),
		g.Entry("present with a non-string taskId", `{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":5}}}`, "", true),
		g.Entry("no related task", `{"_meta":{"other":{"taskId":"t-1"}}}`, "", false),
		g.Entry("a taskId outside _meta", `{"taskId":"t-1"}`, "", false),
		g.Entry("no _meta", `{"content":[]}`, "", false),
		g.Entry("_meta not an object", `{"_meta":"x"}`, "", false),
		g.Entry("not JSON", `{`, "", false),
		g.Entry("empty", ``, "", false),
	)
})

var _ = g.Describe("withoutMeta", func() {
	g.It("drops _meta and keeps the rest", func() {
		got := withoutMeta(json.RawMessage(`{"content":[{"type":"text","text":"hi"}],"isError":false,"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t"}}}`))
		Expect(got).To(Equal(map[string]any{
			"content": []any{map[string]any{"type": "text", "text": "hi"}},
			"isError": false,
		}))
	})

	g.It("makes results that differ only in _meta compare equal, and others not", func() {
		plain := json.RawMessage(`{"content":[{"type":"text","text":"hi"}]}`)
		task := json.RawMessage(`{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t"}},"content":[{"type":"text","text":"hi"}]}`)
		other := json.RawMessage(`{"content":[{"type":"text","text":"bye"}]}`)
		Expect(reflect.DeepEqual(withoutMeta(task), withoutMeta(plain))).To(BeTrue())
		Expect(reflect.DeepEqual(withoutMeta(other), withoutMeta(plain))).To(BeFalse())
	})

	g.It("gives nil for what is not a JSON object", func() {
		Expect(withoutMeta(json.RawMessage(`null`))).To(BeNil())
		Expect(withoutMeta(json.RawMessage(`[1]`))).To(BeNil())
		Expect(withoutMeta(json.RawMessage(`{`))).To(BeNil())
	})
})

// randomID is what a good server hands out: 16 random bytes, base64url.
func randomID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

var _ = g.Describe("staysCancelled", func() {
	// Old verdict: only status cancelled passed, so a server that deletes a
	// cancelled task at once (tasks.mdx#task-cancellation allows it) failed
	// tasks-cancel-during-elicitation/stays-cancelled with "Expected: status
	// cancelled / Actual: error -32602".
	g.DescribeTable("a cancelled task read again",
		func(raw string, want bool) {
			m, err := jsonrpc.Decode([]byte(raw))
			Expect(err).NotTo(HaveOccurred())
			Expect(staysCancelled(m)).To(Equal(want))
		},
		g.Entry("still cancelled", `{"jsonrpc":"2.0","id":1,"result":{"taskId":"t","status":"cancelled"}}`, true),
		g.Entry("deleted: -32602 not found", `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Failed to retrieve task: Task not found"}}`, true),
		g.Entry("brought back to working", `{"jsonrpc":"2.0","id":1,"result":{"taskId":"t","status":"working"}}`, false),
		g.Entry("completed after all", `{"jsonrpc":"2.0","id":1,"result":{"taskId":"t","status":"completed"}}`, false),
		g.Entry("an internal error", `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"boom"}}`, false),
	)
})

var _ = g.Describe("rejected", func() {
	// Old verdict: only -32602 or an HTTP refusal rejected, so a server that
	// refused a foreign task with another code warned (failed with two
	// authorization contexts) on tasks-isolation/foreign-*-rejected.
	g.DescribeTable("a request for another session's task",
		func(raw string, err error, want bool) {
			var m *jsonrpc.Message
			if raw != "" {
				var derr error
				m, derr = jsonrpc.Decode([]byte(raw))
				Expect(derr).NotTo(HaveOccurred())
			}
			Expect(rejected(m, err)).To(Equal(want))
		},
		g.Entry("-32602", `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"not found"}}`, nil, true),
		g.Entry("a server-defined code", `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"forbidden"}}`, nil, true),
		g.Entry("-32600", `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"not yours"}}`, nil, true),
		g.Entry("HTTP 403", "", &transport.HTTPStatusError{Status: 403}, true),
		g.Entry("the task itself", `{"jsonrpc":"2.0","id":1,"result":{"taskId":"t","status":"working"}}`, nil, false),
		g.Entry("no answer at all", "", context.DeadlineExceeded, false),
	)
})

var _ = g.Describe("sessionless", func() {
	g.It("is a connection that was assigned no session id", func() {
		Expect(sessionless(sessionConn{id: ""})).To(BeTrue())
		Expect(sessionless(sessionConn{id: "3f1c2a9e"})).To(BeFalse())
	})
	g.It("is never a connection without session ids (stdio, WebSocket: a session each)", func() {
		Expect(sessionless(plainConn{})).To(BeFalse())
	})
})

var _ = g.Describe("sameInstant", func() {
	// Old verdict: createdAt was compared as text, so a server writing the
	// same instant as "…05.123000Z" and "…05.123Z" failed
	// tasks-status/timestamps-consistent (MUST).
	g.DescribeTable("compares instants, not spellings",
		func(a, b string, want bool) { Expect(sameInstant(a, b)).To(Equal(want)) },
		g.Entry("without and with a zero fraction", "2025-11-25T10:30:00Z", "2025-11-25T10:30:00.000Z", true),
		g.Entry("six and three fraction digits", "2025-11-25T10:30:05.123000Z", "2025-11-25T10:30:05.123Z", true),
		g.Entry("another zone", "2025-11-25T11:30:00+01:00", "2025-11-25T10:30:00Z", true),
		g.Entry("a millisecond apart", "2025-11-25T10:30:05.124Z", "2025-11-25T10:30:05.123Z", false),
		g.Entry("unparsable, the same text", "yesterday", "yesterday", true),
		g.Entry("unparsable, other text", "yesterday", "today", false),
	)
})

var _ = g.Describe("notifiedGroups and judgeNotified", func() {
	note := func(status, at string) *jsonrpc.Message {
		m, err := jsonrpc.Decode([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t","status":%q,"lastUpdatedAt":%q}}`, status, at)))
		Expect(err).NotTo(HaveOccurred())
		return m
	}
	const sec = "2025-11-25T10:30:00Z"

	g.It("does not take equal instants that arrived out of order over HTTP for an illegal sequence", func() {
		// Second-precision timestamps, arrival order across two HTTP
		// streams: completed came in before working. Old verdict: sorted by
		// lastUpdatedAt (stable, so arrival order among equals) the
		// sequence read input_required → completed → working, and
		// notifications-agree failed with "completed → working".
		notes := []*jsonrpc.Message{note("input_required", sec), note("completed", sec), note("working", sec)}
		groups := notifiedGroups(notes, true)
		Expect(groups).To(Equal([][]string{{"input_required", "completed", "working"}}))
		Expect(judgeNotified(groups, "completed")).To(Equal(notifiedVerdict{}))
	})

	g.It("orders unordered notifications by instant, whatever their spelling", func() {
		notes := []*jsonrpc.Message{note("completed", "2025-11-25T10:30:02Z"), note("input_required", "2025-11-25T10:30:00.000Z"),
			note("working", "2025-11-25T10:30:01Z"), note("working", "2025-11-25T10:30:00Z")}
		Expect(notifiedGroups(notes, true)).To(Equal([][]string{{"input_required", "working"}, {"working"}, {"completed"}}))
	})

	g.It("keeps arrival order, one to a group, where the transport keeps order", func() {
		notes := []*jsonrpc.Message{note("input_required", sec), note("completed", sec), note("working", sec)}
		groups := notifiedGroups(notes, false)
		Expect(groups).To(Equal([][]string{{"input_required"}, {"completed"}, {"working"}}))
		Expect(judgeNotified(groups, "completed").after).To(HavePrefix("working after the terminal completed"))
	})

	g.It("allows the terminal status told twice", func() {
		// Old verdict: none-after-terminal warned on any notification after
		// the terminal one, so a server repeating it warned.
		groups := [][]string{{"input_required"}, {"working"}, {"completed"}, {"completed"}}
		Expect(judgeNotified(groups, "completed")).To(Equal(notifiedVerdict{}))
	})

	g.It("names a different status after the terminal one, and only that", func() {
		v := judgeNotified([][]string{{"input_required"}, {"working"}, {"completed"}, {"working"}}, "completed")
		Expect(v.agree).To(BeEmpty())
		Expect(v.after).To(Equal("working after the terminal completed (notified: input_required → working → completed → working)"))
	})

	g.It("names a later group with a different status over HTTP", func() {
		v := judgeNotified([][]string{{"working", "completed"}, {"working"}}, "completed")
		Expect(v.agree).To(BeEmpty())
		Expect(v.after).To(HavePrefix("working after the terminal completed"))
	})

	g.It("names a terminal status polling does not show", func() {
		v := judgeNotified([][]string{{"input_required"}, {"working"}, {"failed"}}, "completed")
		Expect(v.agree).To(Equal("notified failed (notified: input_required → working → failed)"))
		Expect(v.after).To(BeEmpty())
	})

	g.It("names two terminal statuses at the same instant", func() {
		v := judgeNotified([][]string{{"completed", "failed"}}, "completed")
		Expect(v.agree).To(Equal("completed and failed notified at the same instant (notified: {completed, failed})"))
	})

	g.It("has nothing to judge without a terminal notification", func() {
		Expect(judgeNotified([][]string{{"input_required"}, {"working"}}, "completed")).To(Equal(notifiedVerdict{}))
		Expect(judgeNotified(nil, "completed")).To(Equal(notifiedVerdict{}))
	})
})

var _ = g.Describe("shapeDiff", func() {
	result := func(raw string) map[string]any { return withoutMeta(json.RawMessage(raw)) }
	g.It("accepts results that differ only in text (a tool that answers two calls differently)", func() {
		// Old verdict: exact-result compared the task's result with one plain
		// call's, so a tool whose output names a fresh run id failed it (MUST).
		Expect(shapeDiff(result(`{"content":[{"type":"text","text":"run 1a2b"}]}`), result(`{"content":[{"type":"text","text":"run 9f8e"}]}`))).To(BeEmpty())
	})
	g.DescribeTable("names what differs",
		func(got, want, diff string) { Expect(shapeDiff(result(got), result(want))).To(Equal(diff)) },
		g.Entry("wrapped", `{"task":{},"result":{"content":[]}}`, `{"content":[]}`, "fields [result task] instead of [content]"),
		g.Entry("isError", `{"content":[],"isError":true}`, `{"content":[],"isError":false}`, "isError true instead of false"),
		g.Entry("content types", `{"content":[{"type":"image"}]}`, `{"content":[{"type":"text"}]}`, "content types [image] instead of [text]"),
		g.Entry("content count", `{"content":[{"type":"text"},{"type":"text"}]}`, `{"content":[{"type":"text"}]}`, "content types [text text] instead of [text]"),
	)
})

var _ = g.Describe("task waits", func() {
	interval := func(ms int64) client.Observation {
		return client.Observation{Task: client.Task{PollInterval: &ms}}
	}
	g.It("take the latest pollInterval the task was seen with, else the run's", func() {
		Expect(pollIntervalOf(nil, 500*time.Millisecond)).To(Equal(500 * time.Millisecond))
		Expect(pollIntervalOf([]client.Observation{interval(100), {}, interval(5000), {}}, 500*time.Millisecond)).To(Equal(5 * time.Second))
	})
	g.It("last one answer timeout and two poll intervals", func() {
		// Old verdict: every wait on a task lasted one answer timeout, so a
		// server polled every 5000 ms (the spec's own example) that sends no
		// notifications was read working once, then the wait ended:
		// tasks-cancel-terminal/rejected was skipped as "not judged".
		timing := scenarios.Timing{ResponseTimeout: 5 * time.Second}
		Expect(taskWaitBound(timing, 5*time.Second)).To(Equal(15 * time.Second))
		Expect(taskWaitBound(timing, 100*time.Millisecond)).To(Equal(5200 * time.Millisecond))
	})
})

var _ = g.Describe("createdTTL", func() {
	g.It("reads the CreateTaskResult's ttl", func() {
		created := func(raw string) *jsonrpc.Message {
			m, err := jsonrpc.Decode([]byte(raw))
			Expect(err).NotTo(HaveOccurred())
			return m
		}
		Expect(createdTTL(created(`{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t","ttl":2000}}}`))).To(Equal(2 * time.Second))
		Expect(createdTTL(created(`{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t","ttl":null}}}`))).To(BeZero())
		Expect(createdTTL(nil)).To(BeZero())
	})
})

// sessionConn is a connection that reports a session id (Streamable HTTP).
type sessionConn struct {
	plainConn
	id string
}

func (c sessionConn) SessionID() string { return c.id }

// plainConn is a connection without session ids.
type plainConn struct{}

func (plainConn) Send(context.Context, []byte) error       { return nil }
func (plainConn) Recv(ctx context.Context) ([]byte, error) { return nil, io.EOF }
func (plainConn) Close() error                             { return nil }

var _ = g.Describe("sameError", func() {
	msg := func(raw string) *jsonrpc.Message {
		m, err := jsonrpc.Decode([]byte(raw))
		Expect(err).NotTo(HaveOccurred())
		return m
	}
	g.It("tells B's rejection from the task's own outcome", func() {
		cancelled := `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Task was cancelled"}}`
		Expect(sameError(msg(cancelled), msg(cancelled))).To(BeTrue())
		Expect(sameError(msg(`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Task not found"}}`), msg(cancelled))).To(BeFalse())
		Expect(sameError(msg(cancelled), msg(`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`))).To(BeFalse())
		Expect(sameError(nil, msg(cancelled))).To(BeFalse())
	})
})
