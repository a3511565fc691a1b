package tasks

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	g "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/scenarios/judge"
)

var _ = g.Describe("guessable", func() {
	g.It("accepts random 22-character base64url ids", func() {
		Expect(guessable([]string{
			"Yx7bq2Jt0c9KpLrW3mZs8Q",
			"b1R-4nVd_9hXoEa2TkQy7w",
			"M0uZ6sPq3CwL_8fHnJt5Ag",
			"kQ9r2VxY-7dTnBw4pLe1Zs",
			"3HfTz8aNq_6mKcVu0RyW2E",
		})).To(BeEmpty())
		for range 200 {
			ids := []string{randomID(), randomID(), randomID(), randomID(), randomID()}
			Expect(ids[0]).To(HaveLen(22))
			Expect(guessable(ids)).To(BeEmpty(), "ids %v", ids)
		}
	})

	g.It("accepts random UUIDs", func() {
		Expect(guessable([]string{
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
		Expect(guessable(ids)).To(BeEmpty(), "ids %v", ids)
	})

	g.DescribeTable("names short ids",
		func(ids []string, short string) {
			Expect(guessable(ids)).To(Equal(fmt.Sprintf("id %q is shorter than 16 characters", short)))
		},
		g.Entry("counting task-1 … task-5", []string{"task-1", "task-2", "task-3", "task-4", "task-5"}, "task-1"),
		g.Entry("one short among long ones",
			[]string{"Yx7bq2Jt0c9KpLrW3mZs8Q", "b1R-4nVd_9hXoEa2TkQy7w", "abc", "kQ9r2VxY-7dTnBw4pLe1Zs", "3HfTz8aNq_6mKcVu0RyW2E"}, "abc"),
		g.Entry("15 characters", []string{"aBcDeFgHiJkLmNo", "Yx7bq2Jt0c9KpLrW3mZs8Q"}, "aBcDeFgHiJkLmNo"),
		g.Entry("empty", []string{"", "Yx7bq2Jt0c9KpLrW3mZs8Q"}, ""),
	)

	g.DescribeTable("names ids that count up",
		func(ids []string) { Expect(guessable(ids)).To(Equal("the ids count up")) },
		g.Entry("by one", []string{"task-000000000001", "task-000000000002", "task-000000000003", "task-000000000004", "task-000000000005"}),
		g.Entry("with gaps", []string{"session-7f3a-task-10", "session-7f3a-task-17", "session-7f3a-task-90", "session-7f3a-task-91", "session-7f3a-task-4000"}),
		g.Entry("nanosecond clocks", []string{"1764438000000000001", "1764438000000000352", "1764438000000001000", "1764438000000005000", "1764438000000009999"}),
	)

	g.It("names ids that share a long prefix and vary in few characters", func() {
		ids := []string{
			"2f9c1d7e5b3a-task-aa", "2f9c1d7e5b3a-task-ab", "2f9c1d7e5b3a-task-b0", "2f9c1d7e5b3a-task-zz", "2f9c1d7e5b3a-task-0q",
		}
		Expect(guessable(ids)).To(Equal(`the ids share the prefix "2f9c1d7e5b3a-task-" and vary in fewer than 12 characters`))
	})

	g.It("names long ids that count down (they share all but the last digit)", func() {
		ids := []string{"task-000000000005", "task-000000000004", "task-000000000003", "task-000000000002", "task-000000000001"}
		Expect(guessable(ids)).To(HavePrefix(`the ids share the prefix "task-00000000000"`))
	})

	g.It("names a repeated id", func() {
		id := randomID()
		Expect(guessable([]string{id, id, id, id, id})).To(ContainSubstring("vary in fewer than 12 characters"))
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
		Expect(guessable(eleven)).To(Equal(`the ids share the prefix "fixed-prefix-" and vary in fewer than 12 characters`), "ids %v", eleven)
		Expect(guessable(twelve)).To(BeEmpty(), "ids %v", twelve)
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
